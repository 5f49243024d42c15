import { type RunningWebSandbox, SANDBOX_PROXY_PATH, SANDBOX_SCRIPT_PATH, startWebSandbox } from './web-sandbox';
import { SandboxCspError, parseDeclaredCsp, sandboxCsp, sourceCovers } from './sandbox-csp';

const APP = 'https://chat.example.com';
const SANDBOX = 'https://ui.example.net';
const AUTH = 'https://id.example.com';
const protectedOrigins = [APP, SANDBOX, AUTH];

const directives = (csp: string) =>
  Object.fromEntries(
    csp.split('; ').map((directive) => {
      const [name = '', ...values] = directive.split(' ');
      return [name, values.join(' ')];
    }),
  );

const refusal = (raw: string) => {
  try {
    parseDeclaredCsp(raw, protectedOrigins);
  } catch (error) {
    if (error instanceof SandboxCspError) return error.message;
    throw error;
  }
  return undefined;
};

describe('the UI resource sandbox CSP', () => {
  it("is the MCP Apps spec's restrictive default when the resource declares nothing, framed by the app only", () => {
    expect(parseDeclaredCsp(undefined, protectedOrigins)).toBeUndefined();
    expect(directives(sandboxCsp(undefined, APP))).toEqual({
      'default-src': "'none'",
      'script-src': "'self' 'unsafe-inline'",
      'style-src': "'self' 'unsafe-inline'",
      'img-src': "'self' data:",
      'media-src': "'self' data:",
      'connect-src': "'none'",
      'frame-src': "'none'",
      'base-uri': "'self'",
      'object-src': "'none'",
      'form-action': "'none'",
      'frame-ancestors': APP,
    });
    expect(sandboxCsp(parseDeclaredCsp('{}', protectedOrigins), APP)).toBe(sandboxCsp(undefined, APP));
  });

  it('maps connectDomains, resourceDomains, frameDomains and baseUriDomains to their directives', () => {
    const declared = parseDeclaredCsp(
      JSON.stringify({
        connectDomains: ['https://api.weather.example', 'wss://live.weather.example:8443'],
        resourceDomains: ['https://*.cdn.example', 'HTTPS://Fonts.Example.org'],
        frameDomains: ['https://www.youtube.com'],
        baseUriDomains: ['https://base.example'],
      }),
      protectedOrigins,
    );
    const csp = directives(sandboxCsp(declared, APP));
    expect(csp['connect-src']).toBe('https://api.weather.example wss://live.weather.example:8443');
    expect(csp['script-src']).toBe("'self' 'unsafe-inline' https://*.cdn.example https://fonts.example.org");
    expect(csp['style-src']).toBe("'self' 'unsafe-inline' https://*.cdn.example https://fonts.example.org");
    expect(csp['img-src']).toBe("'self' data: https://*.cdn.example https://fonts.example.org");
    expect(csp['media-src']).toBe("'self' data: https://*.cdn.example https://fonts.example.org");
    expect(csp['font-src']).toBe('https://*.cdn.example https://fonts.example.org');
    expect(csp['frame-src']).toBe('https://www.youtube.com');
    expect(csp['base-uri']).toBe('https://base.example');
    expect(csp['default-src']).toBe("'none'");
    expect(csp['object-src']).toBe("'none'");
    expect(csp['frame-ancestors']).toBe(APP);
  });

  it.each([
    ['a quote', { connectDomains: ["'unsafe-eval'"] }],
    ['a semicolon', { connectDomains: ['https://a.example; script-src *'] }],
    ['whitespace', { connectDomains: ['https://a.example https://b.example'] }],
    ['a bare wildcard', { connectDomains: ['*'] }],
    ['a wildcard scheme host', { resourceDomains: ['https://*'] }],
    ['a wildcard over a top-level domain', { resourceDomains: ['https://*.com'] }],
    ['a wildcard inside a label', { resourceDomains: ['https://cdn*.example.com'] }],
    ['a wildcard port', { connectDomains: ['https://a.example:*'] }],
    ['a scheme only', { connectDomains: ['https:'] }],
    ['another scheme', { connectDomains: ['data:'] }],
    ['javascript', { frameDomains: ['javascript://a.example'] }],
    ['a path', { connectDomains: ['https://a.example/api'] }],
    ['a port out of range', { connectDomains: ['https://a.example:70000'] }],
    ['a keyword', { baseUriDomains: ["'self'"] }],
    ['a number', { connectDomains: [443] }],
    ['a string instead of a list', { connectDomains: 'https://a.example' }],
    ['an unknown field', { scriptDomains: ['https://a.example'] }],
    ['too many sources', { connectDomains: Array.from({ length: 33 }, (_, i) => `https://h${i}.example`) }],
  ])('refuses %s', (_what, declared) => {
    expect(refusal(JSON.stringify(declared))).toEqual(expect.any(String));
  });

  it('refuses what is not a JSON object', () => {
    expect(refusal('not json')).toBe('csp is not JSON');
    expect(refusal('[]')).toBe('csp is not an object');
    expect(refusal('null')).toBe('csp is not an object');
    expect(refusal(`{"connectDomains":["${'a'.repeat(9000)}"]}`)).toMatch(/over 8192 characters/);
  });

  it("refuses a source that would reach the platform's own origins (app, sandbox, sign-in pages)", () => {
    expect(refusal(JSON.stringify({ connectDomains: [APP] }))).toMatch(/may not name https:\/\/chat\.example\.com/);
    expect(refusal(JSON.stringify({ connectDomains: ['https://*.example.com'] }))).toMatch(/chat\.example\.com/);
    expect(refusal(JSON.stringify({ connectDomains: ['http://chat.example.com'] }))).toMatch(/chat\.example\.com/);
    expect(refusal(JSON.stringify({ connectDomains: ['wss://chat.example.com'] }))).toMatch(/chat\.example\.com/);
    expect(refusal(JSON.stringify({ resourceDomains: [SANDBOX] }))).toMatch(/ui\.example\.net/);
    expect(refusal(JSON.stringify({ frameDomains: [AUTH] }))).toMatch(/id\.example\.com/);
    // Another port of the same host is another origin (a dev server beside a local platform).
    expect(refusal(JSON.stringify({ connectDomains: ['https://chat.example.com:8443'] }))).toBeUndefined();
  });

  it('tells which sources reach an origin as a browser matches them', () => {
    expect(sourceCovers('https://a.example', 'https://a.example')).toBe(true);
    expect(sourceCovers('http://a.example', 'https://a.example')).toBe(true);
    expect(sourceCovers('https://a.example', 'http://a.example')).toBe(false);
    expect(sourceCovers('https://*.example.com', 'https://x.y.example.com')).toBe(true);
    expect(sourceCovers('https://*.example.com', 'https://example.com')).toBe(false);
    expect(sourceCovers('http://localhost:8080', 'http://localhost:8080')).toBe(true);
    expect(sourceCovers('http://localhost:3000', 'http://localhost:8080')).toBe(false);
    expect(sourceCovers('http://[::1]:8080', 'http://[::1]:8080')).toBe(true);
  });
});

describe('the UI resource sandbox listener', () => {
  let sandbox: RunningWebSandbox;

  beforeAll(async () => {
    sandbox = await startWebSandbox({
      appOrigin: APP,
      sandboxOrigin: SANDBOX,
      protectedOrigins: [AUTH],
      port: 0,
      host: '127.0.0.1',
    });
  });
  afterAll(() => sandbox?.close());

  const get = (path: string, init?: RequestInit) => fetch(`${sandbox.url}${path}`, init);

  it('serves the proxy page with the CSP as a header, never cached, without cookies, naming the app origin', async () => {
    const csp = { connectDomains: ['https://api.weather.example'] };
    const response = await get(`${SANDBOX_PROXY_PATH}?csp=${encodeURIComponent(JSON.stringify(csp))}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(response.headers.get('content-security-policy')).toBe(sandboxCsp(csp, APP));
    const page = await response.text();
    expect(page).toContain(`<meta name="fed-sandbox-host" content="${APP}">`);
    expect(page).toContain(`<script src="${SANDBOX_SCRIPT_PATH}" defer></script>`);
    expect(page).not.toMatch(/<script>/);
  });

  it('serves the default CSP without a csp parameter', async () => {
    const response = await get(SANDBOX_PROXY_PATH);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toBe(sandboxCsp(undefined, APP));
  });

  it('answers a bad csp, an unknown or repeated parameter with 400 and no page', async () => {
    for (const query of [
      `csp=${encodeURIComponent('{"connectDomains":["*"]}')}`,
      'csp=%7B',
      'csp=%7B%7D&csp=%7B%7D',
      'other=1',
    ]) {
      const response = await get(`${SANDBOX_PROXY_PATH}?${query}`);
      expect(response.status).toBe(400);
      expect(response.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(await response.text()).not.toContain('fed-sandbox-host');
    }
  });

  it('serves its script under a content-named path, and nothing else', async () => {
    const script = await get(SANDBOX_SCRIPT_PATH);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toContain('immutable');
    expect(await script.text()).toContain('ui/notifications/sandbox-');
    expect((await get('/')).status).toBe(404);
    expect((await get('/proxy.js')).status).toBe(404);
    expect((await get(`${SANDBOX_PROXY_PATH}/x`)).status).toBe(404);
    expect((await get(SANDBOX_PROXY_PATH, { method: 'POST', body: 'x' })).status).toBe(405);
  });
});
