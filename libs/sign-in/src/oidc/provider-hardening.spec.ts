import 'reflect-metadata';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService } from '@fed/server';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import type Provider from 'oidc-provider';
import { bootAuthService, registryOf } from '../testing/boot-auth-service';
import { TestBrowser } from '@fed/testing';

const REDIRECT_URI = 'https://app.example.com/callback';
// Symbol.for: the provider instance as the auth-service module registers it.
const OIDC_PROVIDER = Symbol.for('fed.identity.OidcProvider');

/** What oidc-provider is given and trusts: its key, its cookies, forwarded headers. */
describe('the OpenID provider library is held to what we publish and trust', () => {
  let database: TestDatabase;
  const running: RunningService[] = [];
  // The services below share one database, so one key opens its signing key.
  const encryptionKey = randomBytes(32).toString('base64');

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterAll(async () => {
    for (const service of running) await service.shutdown('test');
    await database?.drop();
  });

  async function boot(env: Record<string, string>): Promise<RunningService> {
    const service = await bootAuthService({ databaseUrl: database.url, encryptionKey, env });
    running.push(service);
    const { clients } = registryOf(service);
    if (!(await clients.list()).some((client) => client.clientId === 'web')) {
      await clients.create({
        clientId: 'web',
        name: 'web',
        grantTypes: ['authorization_code'],
        scopes: ['chat:exec'],
        redirectUris: [REDIRECT_URI],
      });
    }
    return service;
  }

  /** The cookies the provider sets when an authorization request reaches the login page. */
  async function cookiesOfAuthorize(service: RunningService, headers: Record<string, string> = {}): Promise<string[]> {
    const query = new URLSearchParams({
      client_id: 'web',
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'openid',
      state: 'xyz',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
    const browser = new TestBrowser(service.url);
    const page = await browser.visit(`${service.url}/federation/auth/v1/authorize?${query}`, { headers });
    expect(page.status).toBe(200);
    expect(page.html).toContain('name="password"');
    expect(browser.rawSetCookies.length).toBeGreaterThan(0);
    return browser.rawSetCookies;
  }

  it('marks its cookies Secure for an https issuer, even where TLS ends at a proxy it does not trust', async () => {
    const service = await boot({ AUTH_URL: 'https://auth.example.test', TRUST_PROXY_HOPS: '0' });
    for (const cookie of await cookiesOfAuthorize(service)) expect(cookie).toMatch(/;\s*secure/i);
    // A caller's own forwarded scheme changes nothing: no proxy is trusted.
    const forged = await cookiesOfAuthorize(service, { 'x-forwarded-proto': 'http' });
    for (const cookie of forged) expect(cookie).toMatch(/;\s*secure/i);
  });

  it('does not take a forwarded scheme from a caller when no proxy is trusted', async () => {
    const service = await boot({ TRUST_PROXY_HOPS: '0' });
    const cookies = await cookiesOfAuthorize(service, { 'x-forwarded-proto': 'https' });
    for (const cookie of cookies) expect(cookie).not.toMatch(/;\s*secure/i);
  });

  it('signs with a throwaway key of its own that is not in the published JWKS', async () => {
    const service = await boot({});
    const provider = service.nest.get<Provider>(OIDC_PROVIDER);
    // The provider's own JWKS route, which the platform never routes to, served here to read its key set.
    const server = createServer(provider.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const own = (await (await fetch(`http://127.0.0.1:${port}/federation/auth/v1/provider/jwks`)).json()) as {
        keys: { kid: string }[];
      };
      const published = (await (await fetch(`${service.url}/federation/auth/v1/jwks`)).json()) as {
        keys: { kid: string }[];
      };
      expect(own.keys.length).toBeGreaterThan(0);
      expect(published.keys.length).toBeGreaterThan(0);
      const publishedKids = new Set(published.keys.map((key) => key.kid));
      expect(own.keys.filter((key) => publishedKids.has(key.kid))).toEqual([]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
