import http from 'node:http';
import { buildDist, buildWeb, cleanEnv, freePort, startProcess } from '@fed/testing';

const main = 'dist/apps/web-service/src/main.js';

/** The web app's deployable of the distributed stack, as the Kubernetes Deployment and compose run it. */
describe('web-service', () => {
  let port: number;
  let sandboxPort: number;
  let base: string;
  let sandbox: string;
  let service: ReturnType<typeof startProcess>;

  beforeAll(async () => {
    buildDist();
    buildWeb();
    port = await freePort();
    sandboxPort = await freePort();
    base = `http://127.0.0.1:${port}`;
    sandbox = `http://127.0.0.1:${sandboxPort}`;
    // No DATABASE_URL and no REDIS_URL: it keeps nothing.
    service = startProcess(
      main,
      [],
      cleanEnv({
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_URL: 'https://app.example.test',
        AUTH_URL: 'https://login.example.test',
        WEB_SANDBOX_PORT: String(sandboxPort),
        WEB_SANDBOX_URL: 'https://sandbox.example.test',
        CHAT_MODEL_NAME: 'house-agent',
      }),
    );
    await service.waitForOutput(/web-service listening/, 30_000);
  }, 90_000);

  afterAll(() => {
    service?.child.kill('SIGKILL');
  });

  it('serves index.html uncached with its settings, under a CSP without inline script that frames only the sandbox', async () => {
    for (const at of ['/', '/callback', '/signed-out', `/c/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`]) {
      const response = await fetch(`${base}${at}`);
      expect([at, response.status, response.headers.get('cache-control')]).toEqual([at, 200, 'no-cache']);
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain('frame-src https://sandbox.example.test');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      const html = await response.text();
      const meta = /<meta name="fed-web-config" content="([^"]*)"/.exec(html)?.[1] ?? '';
      expect(JSON.parse(meta.replace(/&quot;/g, '"').replace(/&amp;/g, '&'))).toMatchObject({
        issuer: 'https://login.example.test/realms/federation',
        clientId: 'web',
        endSessionEndpoint: 'https://login.example.test/federation/auth/v1/logout',
        chatModel: 'house-agent',
        sandboxUrl: 'https://sandbox.example.test',
        // The SaaS edition (EDITION's default): chat and console, with the chat's scopes.
        edition: 'saas',
        scopes: expect.arrayContaining(['chat:exec', 'platform:manage']),
      });
    }
  });

  it("tells the app in the Marketplace edition that it is that edition's admin panel, asking for no chat scope", async () => {
    const marketplacePort = await freePort();
    const marketplace = startProcess(
      main,
      [],
      cleanEnv({
        PORT: String(marketplacePort),
        HOST: '127.0.0.1',
        PUBLIC_URL: 'https://panel.example.test',
        AUTH_URL: 'https://login.example.test',
        WEB_SANDBOX_PORT: String(await freePort()),
        WEB_SANDBOX_URL: 'https://sandbox.example.test',
        EDITION: 'marketplace',
      }),
    );
    try {
      await marketplace.waitForOutput(/web-service listening/, 30_000);
      const html = await (await fetch(`http://127.0.0.1:${marketplacePort}/console/marketplace-agents`)).text();
      const meta = /<meta name="fed-web-config" content="([^"]*)"/.exec(html)?.[1] ?? '';
      expect(JSON.parse(meta.replace(/&quot;/g, '"').replace(/&amp;/g, '&'))).toMatchObject({
        clientId: 'web',
        edition: 'marketplace',
        scopes: ['openid', 'profile', 'email', 'platform:manage'],
      });
    } finally {
      marketplace.child.kill('SIGKILL');
    }
  }, 60_000);

  it('serves hashed assets for a year and nothing else: no other file, no traversal, no API path, GET only', async () => {
    const html = await (await fetch(`${base}/`)).text();
    const script = /<script type="module" crossorigin src="([^"]+)"/.exec(html)?.[1] as string;
    const asset = await fetch(`${base}${script}`);
    expect([asset.status, asset.headers.get('cache-control')]).toEqual([200, 'public, max-age=31536000, immutable']);
    for (const probe of ['/assets/nope.js', '/assets/%2e%2e/index.html', '/api/v1/users/me', '/index.html', '/x']) {
      const response = await fetch(`${base}${probe}`);
      expect([probe, response.status]).toEqual([probe, 404]);
      expect(await response.json()).toMatchObject({ error: { code: 'not_found' } });
    }
    const raw = await new Promise<number>((resolve, reject) =>
      http
        .get(
          { host: '127.0.0.1', port, path: '/assets/../favicon.svg' },
          (r) => (r.resume(), resolve(r.statusCode ?? 0)),
        )
        .on('error', reject),
    );
    expect(raw).toBe(404);
    const post = await fetch(`${base}/`, { method: 'POST', body: '['.repeat(100_000) });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });

  it('answers its probes', async () => {
    for (const probe of ['/healthz', '/readyz']) expect((await fetch(`${base}${probe}`)).status).toBe(200);
  });

  it('serves the UI resource sandbox on its own port: the proxy page with the declared CSP, framed by the app only', async () => {
    const csp = encodeURIComponent(JSON.stringify({ connectDomains: ['https://api.example.org'] }));
    const page = await fetch(`${sandbox}/proxy?csp=${csp}`);
    expect(page.status).toBe(200);
    const header = page.headers.get('content-security-policy') ?? '';
    expect(header).toContain('https://api.example.org');
    expect(header).toContain('frame-ancestors https://app.example.test');
    expect((await fetch(`${sandbox}/proxy?csp=${encodeURIComponent('{"connectDomains":["*"]}')}`)).status).toBe(400);
    // The app is not served there, nor the sandbox on the app's port.
    expect((await fetch(`${sandbox}/`)).status).toBe(404);
    expect((await fetch(`${base}/proxy`)).status).toBe(404);
  });

  it('stops on SIGTERM with exit code 0', async () => {
    service.child.kill('SIGTERM');
    expect(await service.exited(10_000)).toBe(0);
  });
});
