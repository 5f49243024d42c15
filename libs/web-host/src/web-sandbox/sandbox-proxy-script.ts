// The sandbox proxy's script (MCP Apps 2026-01-26, "Sandbox proxy"), served as a file of its own: the page has
// no inline script. Hand-written browser JavaScript, kept small enough to read whole.
//
// - Talks to the app only: a message counts as the host's when it comes from window.parent with the app's
//   exact origin (the page's `fed-sandbox-host` meta, which the server fills in), and is posted back to that
//   origin, never to `*`.
// - Loads the resource once, on `ui/notifications/sandbox-resource-ready`, into an inner frame with
//   `sandbox="allow-scripts"` only (an opaque origin: no storage, cookies or same-origin access) as `srcdoc`,
//   which keeps this page's header CSP. The message's own `sandbox` and `csp` are not honoured.
// - Relays JSON-RPC both ways, except the reserved `ui/notifications/sandbox-*` methods, which the View may
//   not send to the host and the host's of which are for this page.
export const SANDBOX_PROXY_SCRIPT = `'use strict';
(function () {
  var meta = document.querySelector('meta[name="fed-sandbox-host"]');
  var hostOrigin = meta && meta.getAttribute('content');
  if (!hostOrigin || window.parent === window) return;
  var RESERVED = 'ui/notifications/sandbox-';
  var view = null;

  function isJsonRpc(data) {
    return data !== null && typeof data === 'object' && data.jsonrpc === '2.0';
  }
  function isReserved(data) {
    return typeof data.method === 'string' && data.method.indexOf(RESERVED) === 0;
  }
  function load(params) {
    if (view || !params || typeof params.html !== 'string') return;
    view = document.createElement('iframe');
    view.setAttribute('sandbox', 'allow-scripts');
    view.setAttribute('title', 'UI resource');
    view.style.border = '0';
    view.style.display = 'block';
    view.style.width = '100%';
    view.style.height = '100%';
    view.srcdoc = params.html;
    document.body.appendChild(view);
  }

  window.addEventListener('message', function (event) {
    var data = event.data;
    if (!isJsonRpc(data)) return;
    if (event.source === window.parent) {
      if (event.origin !== hostOrigin) return;
      if (isReserved(data)) {
        if (data.method === RESERVED + 'resource-ready') load(data.params);
        return;
      }
      // The View's frame has an opaque origin: '*' is the only target that reaches it.
      if (view && view.contentWindow) view.contentWindow.postMessage(data, '*');
      return;
    }
    if (view && event.source === view.contentWindow && !isReserved(data)) {
      window.parent.postMessage(data, hostOrigin);
    }
  });

  document.documentElement.style.height = '100%';
  document.body.style.margin = '0';
  document.body.style.height = '100%';
  window.parent.postMessage({ jsonrpc: '2.0', method: RESERVED + 'proxy-ready', params: {} }, hostOrigin);
})();
`;
