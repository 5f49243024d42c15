import {
  AppBridge,
  type McpUiHostCapabilities,
  type McpUiHostContext,
  type McpUiResourceCsp,
  PostMessageTransport,
} from '@modelcontextprotocol/ext-apps/app-bridge';

// The host side of an MCP Apps view (MCP Apps 2026-01-26): the app talks to the sandbox proxy frame on the
// sandbox origin, which relays to the view's own frame. The view may size itself and ask to open links; it gets
// no tool calls, messages or model context, because the platform has no path for a view to reach them.

/** The proxy page of the sandbox listener (libs/web-host/src/web-sandbox/web-sandbox.ts). */
export const SANDBOX_PROXY_PATH = '/proxy';

/** A view's height stays within these, whatever it asks for. */
export const MIN_VIEW_HEIGHT = 48;
export const MAX_VIEW_HEIGHT = 1200;

export const clampHeight = (height: number) => Math.min(MAX_VIEW_HEIGHT, Math.max(MIN_VIEW_HEIGHT, Math.ceil(height)));

const CSP_FIELDS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;

/**
 * The CSP a resource declared (`meta.csp`, the resource's `_meta.ui.csp`; `meta.ui.csp` read as well), its four
 * lists only, each of strings. The sandbox checks every source again and refuses the page on a bad one.
 */
export function declaredCsp(meta: Record<string, unknown> | undefined): McpUiResourceCsp | undefined {
  const ui = meta?.ui;
  const csp = meta?.csp ?? (typeof ui === 'object' && ui !== null ? (ui as Record<string, unknown>).csp : undefined);
  if (typeof csp !== 'object' || csp === null) return undefined;
  const declared: McpUiResourceCsp = {};
  for (const field of CSP_FIELDS) {
    const list = (csp as Record<string, unknown>)[field];
    if (Array.isArray(list) && list.length > 0) declared[field] = list.map(String);
  }
  return Object.keys(declared).length > 0 ? declared : undefined;
}

/** The proxy page with the declared CSP in its query; none: the sandbox's restrictive default. */
export function proxyUrl(sandboxUrl: string, csp: McpUiResourceCsp | undefined): string {
  const page = `${sandboxUrl.replace(/\/+$/, '')}${SANDBOX_PROXY_PATH}`;
  return csp ? `${page}?csp=${encodeURIComponent(JSON.stringify(csp))}` : page;
}

/** The page's theme (`<html data-theme>`), else the system's. */
export function pageTheme(): 'light' | 'dark' {
  const theme = document.documentElement.dataset.theme;
  if (theme === 'light' || theme === 'dark') return theme;
  return window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export interface ViewContext {
  theme: 'light' | 'dark';
  locale: string;
  /** The frame's width in pixels. */
  width: number;
}

export function hostContext(context: ViewContext, tool: { callId: string; name: string }): McpUiHostContext {
  return {
    theme: context.theme,
    locale: context.locale,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    displayMode: 'inline',
    availableDisplayModes: ['inline'],
    containerDimensions: { width: Math.round(context.width), maxHeight: MAX_VIEW_HEIGHT },
    platform: 'web',
    deviceCapabilities: {
      touch: window.matchMedia('(pointer: coarse)').matches,
      hover: window.matchMedia('(hover: hover)').matches,
    },
    toolInfo: { id: tool.callId, tool: { name: tool.name, inputSchema: { type: 'object' } } },
  };
}

/** What the view is told of its tool call: its arguments and result from the step's task (or its words). */
export interface ToolCallData {
  arguments: Record<string, unknown>;
  /** The tool's result as MCP gives it: content items and structured content. */
  result: { content: unknown[]; structuredContent?: unknown };
  failed: boolean;
}

export interface SandboxOptions {
  frame: HTMLIFrameElement;
  sandboxOrigin: string;
  /** The proxy page's URL; the frame is pointed there once the bridge listens. */
  src: string;
  html: string;
  csp?: McpUiResourceCsp;
  context: ViewContext;
  tool: { callId: string; name: string };
  call: ToolCallData;
  onProxyReady(): void;
  onSize(height: number): void;
  /** Resolves true when the person confirms. */
  confirmLink(url: URL): Promise<boolean>;
}

export interface SandboxSession {
  /** A changed theme, locale or width, told to an initialized view. */
  update(context: ViewContext): void;
  /** `ui/resource-teardown` to an initialized view, then the bridge stops. */
  close(): void;
}

/** A JSON-RPC error of the spec's implementation-defined kind. */
const refusal = (message: string) => Object.assign(new Error(message), { code: -32000 });

const TEARDOWN_TIMEOUT_MS = 1000;

export function connectSandbox(options: SandboxOptions): SandboxSession {
  const { frame, sandboxOrigin, tool } = options;
  const proxy = frame.contentWindow;
  if (!proxy) throw new Error('the sandbox frame is not in the document');

  // PostMessageTransport knows the frame's window but not its origin: messages from that window with another
  // origin (the frame navigated away) are stopped before it sees them, and ours go to the sandbox origin only.
  const guard = (event: MessageEvent) => {
    if (event.source === proxy && event.origin !== sandboxOrigin) event.stopImmediatePropagation();
  };
  window.addEventListener('message', guard);
  const target = { postMessage: (message: unknown) => proxy.postMessage(message, sandboxOrigin) } as unknown as Window;

  const capabilities: McpUiHostCapabilities = {
    openLinks: {},
    ...(options.csp ? { sandbox: { csp: options.csp } } : {}),
  };
  const bridge = new AppBridge(null, { name: 'fed-web', version: '1.0.0' }, capabilities, {
    hostContext: hostContext(options.context, tool),
  });
  let initialized = false;
  let latest = options.context;
  let closed = false;
  let linkPending = false;

  bridge.onsandboxready = () => {
    options.onProxyReady();
    void bridge.sendSandboxResourceReady({ html: options.html, ...(options.csp ? { csp: options.csp } : {}) });
  };
  bridge.oninitialized = () => {
    initialized = true;
    bridge.setHostContext(hostContext(latest, tool));
    void bridge.sendToolInput({ arguments: options.call.arguments });
    void bridge.sendToolResult({
      ...(options.call.result as Parameters<typeof bridge.sendToolResult>[0]),
      ...(options.call.failed ? { isError: true } : {}),
    });
  };
  bridge.onsizechange = ({ height }) => {
    if (typeof height === 'number' && Number.isFinite(height)) options.onSize(clampHeight(height));
  };
  bridge.onopenlink = async ({ url }) => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw refusal('Invalid URL');
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw refusal('Invalid URL');
    // One question at a time: a view cannot stack dialogs.
    if (linkPending) throw refusal('Policy violation');
    linkPending = true;
    try {
      if (!(await options.confirmLink(parsed))) throw refusal('Link opening denied by user');
    } finally {
      linkPending = false;
    }
    window.open(parsed.href, '_blank', 'noopener,noreferrer');
    return {};
  };
  // No path from a view to the agent's tools, the conversation or the model: refused, never queued.
  bridge.oncalltool = async () => {
    throw refusal('This host runs no tools for a view');
  };
  bridge.onmessage = async () => {
    throw refusal('Message sending denied');
  };
  bridge.onupdatemodelcontext = async () => {
    throw refusal('Context update denied');
  };
  bridge.onloggingmessage = () => undefined;

  const transport = new PostMessageTransport(target, proxy);
  void bridge.connect(transport).then(() => {
    if (!closed) frame.src = options.src;
  });

  return {
    update(context) {
      latest = context;
      if (initialized && !closed) bridge.setHostContext(hostContext(context, tool));
    },
    close() {
      if (closed) return;
      closed = true;
      const stop = () => {
        window.removeEventListener('message', guard);
        void bridge.close();
      };
      if (!initialized) return stop();
      bridge.teardownResource({}, { timeout: TEARDOWN_TIMEOUT_MS }).then(stop, stop);
    },
  };
}
