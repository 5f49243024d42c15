import 'reflect-metadata';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService } from '@fed/server';
import { createHash, randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { bootAuthService, createApprovedUser, insertTenant, registryOf } from '../testing/boot-auth-service';
import { TestBrowser } from '@fed/testing';

const REDIRECT_URI = 'https://app.example.com/callback';
const PASSWORD = 'correct horse battery staple';
// Every client must use PKCE unless opted out: the requests below carry this pair unless a test says otherwise.
const VERIFIER = randomBytes(32).toString('base64url');
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

/** Each row of the spec's error tables and the discovery table (document 1), over plain HTTP. */
describe('OpenID provider: discovery and the error tables (spec document 1)', () => {
  let database: TestDatabase;
  let service: RunningService;
  let dataSource: DataSource;
  const secrets: Record<string, string> = {};
  let base: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await bootAuthService({ databaseUrl: database.url });
    base = `${service.url}/federation/auth/v1`;
    dataSource = service.nest.get(DataSource);
    const { clients, users } = registryOf(service);
    await insertTenant(service, {
      id: '33333333-3333-4333-8333-333333333333',
      name: 'closed',
      type: 'enterprise',
      endpoint: 'https://closed.example.com',
      enabled: true,
    });
    for (const clientId of ['web', 'off', 'm2m-web', 'legacy']) {
      const issued = await clients.create({
        clientId,
        name: `${clientId} <app>`,
        grantTypes: ['authorization_code', 'refresh_token'],
        scopes: ['openid', 'profile', 'chat:exec'],
        redirectUris: [REDIRECT_URI],
        consentRequired: false,
        requirePkce: clientId !== 'legacy',
      });
      secrets[clientId] = issued.clientSecret;
    }
    await dataSource.query(`UPDATE "identity"."clients" SET "enabled" = false WHERE "client_id" = 'off'`);
    await dataSource.query(
      `UPDATE "identity"."clients" SET "grant_types" = '{client_credentials}' WHERE "client_id" = 'm2m-web'`,
    );
    for (const [login, tenantName] of [
      ['carol', undefined],
      ['dave', 'closed'],
      ['erin', undefined],
    ] as const) {
      await createApprovedUser(users, login, { password: PASSWORD, role: 'user', tenantName });
    }
  });

  afterAll(async () => {
    await service?.shutdown('test');
    await database?.drop();
  });

  /** An empty value leaves the parameter out. */
  const authorizeUrl = (params: Record<string, string>) =>
    `${base}/authorize?${new URLSearchParams(Object.entries(params).filter(([, value]) => value !== ''))}`;
  const valid = {
    client_id: 'web',
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: 'openid',
    state: 'xyz',
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
  };

  /** The redirect of an authorization request answered without a login page. */
  async function redirected(params: Record<string, string>) {
    const res = await fetch(authorizeUrl(params), { redirect: 'manual' });
    expect([302, 303]).toContain(res.status);
    const location = new URL(res.headers.get('location') as string);
    expect(location.origin + location.pathname).toBe(REDIRECT_URI);
    return Object.fromEntries(location.searchParams);
  }

  async function code(login: string, extra: Record<string, string> = {}) {
    const browser = new TestBrowser(service.url);
    let page = await browser.visit(authorizeUrl({ ...valid, ...extra }));
    page = await browser.submit(page, { login, password: PASSWORD });
    return new URL(page.location as string).searchParams.get('code') as string;
  }

  const token = (form: Record<string, string>) =>
    fetch(`${base}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
  const errorOf = async (res: Response) => ({ status: res.status, ...((await res.json()) as object) });
  /** `extra` may replace any field; an empty value leaves it out (`code_verifier: ''`: none sent). */
  const exchange = (value: string, extra: Record<string, string> = {}) =>
    token({
      grant_type: 'authorization_code',
      code: value,
      redirect_uri: REDIRECT_URI,
      client_id: 'web',
      client_secret: secrets.web,
      code_verifier: VERIFIER,
      ...extra,
    });

  describe('discovery', () => {
    it('serves the fields of the spec and of RFC 8414, the same bytes on every path', async () => {
      const issuer = service.config.auth.issuer;
      const answers = await Promise.all(
        [
          '/realms/federation/.well-known/openid-configuration',
          '/realms/federation/.well-known/oauth-authorization-server',
          // RFC 8414 3.1 (the well-known name inserted before the issuer's path), and the MCP spec's next try.
          '/.well-known/oauth-authorization-server/realms/federation',
          '/.well-known/openid-configuration/realms/federation',
        ].map((path) => fetch(`${service.url}${path}`)),
      );
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
        expect(answer.headers.get('access-control-allow-origin')).toBe('*');
      }
      const [a, ...others] = await Promise.all(answers.map(async (answer) => Buffer.from(await answer.arrayBuffer())));
      for (const other of others) expect(other.equals(a)).toBe(true);
      const endpoint = (name: string) => `${service.config.auth.authUrl}/federation/auth/v1/${name}`;
      expect(JSON.parse(a.toString())).toStrictEqual({
        issuer,
        authorization_endpoint: endpoint('authorize'),
        token_endpoint: endpoint('token'),
        userinfo_endpoint: endpoint('userinfo'),
        jwks_uri: endpoint('jwks'),
        revocation_endpoint: endpoint('revoke'),
        grant_types_supported: ['authorization_code', 'client_credentials', 'refresh_token'],
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
        code_challenge_methods_supported: ['S256'],
        scopes_supported: [
          'openid',
          'profile',
          'email',
          'chat:exec',
          'chat:history',
          'chat:file',
          'mcp:all',
          'a2a:all',
          'sharedmemory:query',
          'users:read',
          'users:manage',
          'logs:read',
          'master:manage',
          'llm:invoke',
          'platform:manage',
          'offline_access',
        ],
        client_id_metadata_document_supported: true,
      });
      expect(issuer).toBe(`${service.config.auth.authUrl}/realms/federation`);
    });
  });

  describe('authorize endpoint: errors by redirect with error, error_description and state', () => {
    it.each([
      ['invalid_request', 'a missing response_type', { response_type: '' }],
      ['invalid_request', 'PKCE plain', { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }],
      ['invalid_request', 'PKCE missing (required by default)', { code_challenge: '', code_challenge_method: '' }],
      ['invalid_request', 'response_mode other than query', { response_mode: 'form_post' }],
      ['unsupported_response_type', 'response_type other than code', { response_type: 'id_token' }],
      ['invalid_scope', 'a missing scope', { scope: '' }],
      ['invalid_scope', 'an unknown scope', { scope: 'openid root' }],
      ['invalid_scope', 'a scope the client lacks', { scope: 'openid users:manage' }],
      ['invalid_target', 'an unknown resource', { resource: 'https://elsewhere.example.com/api/v1/mcp' }],
      ['invalid_target', 'a relative resource', { resource: '/api/v1/mcp' }],
      ['access_denied', 'a disabled client', { client_id: 'off' }],
      ['unauthorized_client', 'a client without the code flow', { client_id: 'm2m-web' }],
    ])('%s for %s', async (error, _why, change) => {
      const params: Record<string, string> = { ...valid, ...change };
      for (const [name, value] of Object.entries(change)) if (value === '') delete params[name];
      const answer = await redirected(params);
      expect(answer).toMatchObject({ error, state: 'xyz' });
      expect(answer.error_description).toEqual(expect.any(String));
      expect(answer.code).toBeUndefined();
    });

    it('never redirects to an unregistered redirect_uri: an escaped error page instead', async () => {
      for (const params of [
        { ...valid, redirect_uri: 'https://evil.example.com/<script>' },
        { ...valid, client_id: 'nobody<b>' },
      ]) {
        const res = await fetch(authorizeUrl(params), { redirect: 'manual' });
        expect(res.status).toBe(400);
        expect(res.headers.get('location')).toBeNull();
        const html = await res.text();
        expect(html).not.toContain('<script>');
        expect(html).not.toContain('<b>');
        expect(res.headers.get('x-frame-options')).toBe('DENY');
      }
    });

    it('serves login pages that cannot be framed, with a CSRF token the form must return', async () => {
      const browser = new TestBrowser(service.url);
      const page = await browser.visit(authorizeUrl({ ...valid, ui_locales: 'fr en' }));
      expect(page.html).toContain('name="csrf"');
      expect(page.html).toContain('web &#60;app&#62;');
      const forged = await browser.submit(page, { login: 'carol', password: PASSWORD, csrf: 'forged' });
      expect(forged.status).toBe(403);
      const cookies = browser.rawSetCookies.join('\n');
      expect(cookies).toMatch(/httponly/i);
      expect(cookies).toMatch(/samesite=lax/i);
    });
  });

  it('shows the login page in the language of ui_locales (Japanese by default)', async () => {
    const html = async (extra: Record<string, string>) =>
      (await new TestBrowser(service.url).visit(authorizeUrl({ ...valid, ...extra }))).html;
    expect(await html({})).toContain('<html lang="ja"');
    expect(await html({ ui_locales: 'en-US fr' })).toContain('<html lang="en"');
    expect(await html({ ui_locales: 'zh-TW' })).toContain('<html lang="zh-TW"');
    expect(await html({ ui_locales: 'xx' })).toContain('<html lang="ja"');
  });

  it('locks one address out of an account after five failed logins, without locking the account for others', async () => {
    const browser = new TestBrowser(service.url);
    let page = await browser.visit(authorizeUrl({ ...valid, ui_locales: 'en' }));
    for (let attempt = 0; attempt < 5; attempt++) {
      page = await browser.submit(page, { login: 'erin', password: 'wrong password' });
      expect(page.status).toBe(401);
    }
    page = await browser.submit(page, { login: 'erin', password: PASSWORD });
    expect(page.status).toBe(429);
    expect(page.html).toContain('Too many failed attempts');
    const other = await browser.submit(page, { login: 'carol', password: PASSWORD });
    expect(other.location).toBeDefined();
  });

  describe('token endpoint', () => {
    it('400 invalid_request for a missing code or redirect_uri', async () => {
      const value = await code('carol');
      expect(await errorOf(await exchange('', {}))).toMatchObject({ status: 400, error: 'invalid_request' });
      const noRedirect = await token({
        grant_type: 'authorization_code',
        code: value,
        client_id: 'web',
        client_secret: secrets.web,
      });
      expect(await errorOf(noRedirect)).toMatchObject({ status: 400, error: 'invalid_request' });
    });

    it('400 unsupported_grant_type, and invalid_request for repeated parameters or two authentication methods', async () => {
      const credentials = { client_id: 'web', client_secret: secrets.web };
      expect(await errorOf(await token({ grant_type: 'password', ...credentials }))).toMatchObject({
        status: 400,
        error: 'unsupported_grant_type',
      });
      const repeated = await fetch(`${base}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `grant_type=refresh_token&grant_type=refresh_token&refresh_token=x&client_id=web&client_secret=${secrets.web}`,
      });
      expect(await errorOf(repeated)).toMatchObject({ status: 400, error: 'invalid_request' });
      const both = await fetch(`${base}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`web:${secrets.web}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', client_secret: secrets.web }),
      });
      expect(await errorOf(both)).toMatchObject({ status: 400, error: 'invalid_request' });
      const wrongBasic = await fetch(`${base}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from('web:wrong').toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x' }),
      });
      expect(wrongBasic.status).toBe(401);
      expect(wrongBasic.headers.get('www-authenticate')).toMatch(/^Basic /);
      expect(wrongBasic.headers.get('cache-control')).toBe('no-store');
    });

    it('400 invalid_grant for an unknown, reused, expired or mismatched code, and a failed PKCE check', async () => {
      expect(await errorOf(await exchange('nope'))).toMatchObject({ status: 400, error: 'invalid_grant' });

      const once = await code('carol');
      expect((await exchange(once)).status).toBe(200);
      expect(await errorOf(await exchange(once))).toMatchObject({ status: 400, error: 'invalid_grant' });

      const elsewhere = await code('carol');
      expect(await errorOf(await exchange(elsewhere, { redirect_uri: 'https://app.example.com/other' }))).toMatchObject(
        {
          status: 400,
          error: 'invalid_grant',
        },
      );

      const expired = await code('carol');
      await dataSource.query(
        `UPDATE "identity"."oidc_artifacts" SET "payload" = jsonb_set("payload", '{exp}', '1') WHERE "id" = $1`,
        [expired],
      );
      expect(await errorOf(await exchange(expired))).toMatchObject({ status: 400, error: 'invalid_grant' });

      const verifier = randomBytes(32).toString('base64url');
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const pkce = { code_challenge: challenge, code_challenge_method: 'S256' };
      const missing = await code('carol', pkce);
      expect(await errorOf(await exchange(missing, { code_verifier: '' }))).toMatchObject({
        status: 400,
        error: 'invalid_grant',
      });
      const wrong = await code('carol', pkce);
      expect(
        await errorOf(await exchange(wrong, { code_verifier: randomBytes(32).toString('base64url') })),
      ).toMatchObject({
        status: 400,
        error: 'invalid_grant',
      });
      const right = await code('carol', pkce);
      expect((await exchange(right, { code_verifier: verifier })).status).toBe(200);
    });

    it('lets a client opted out of PKCE (a legacy confidential client) exchange a code without it', async () => {
      const value = await code('carol', { client_id: 'legacy', code_challenge: '', code_challenge_method: '' });
      const answer = await exchange(value, { client_id: 'legacy', client_secret: secrets.legacy, code_verifier: '' });
      expect(answer.status).toBe(200);
    });

    it('401 invalid_client for a wrong secret, whatever the grant', async () => {
      const value = await code('carol');
      expect(await errorOf(await exchange(value, { client_secret: 'wrong' }))).toMatchObject({
        status: 401,
        error: 'invalid_client',
      });
      const refresh = await token({
        grant_type: 'refresh_token',
        refresh_token: 'x',
        client_id: 'web',
        client_secret: 'wrong',
      });
      expect(await errorOf(refresh)).toMatchObject({ status: 401, error: 'invalid_client' });
    });

    it('400 unauthorized_client when the user tenant is disabled', async () => {
      const value = await code('dave');
      await dataSource.query(`UPDATE "identity"."tenants" SET "enabled" = false WHERE "name" = 'closed'`);
      try {
        expect(await errorOf(await exchange(value))).toMatchObject({ status: 400, error: 'unauthorized_client' });
      } finally {
        await dataSource.query(`UPDATE "identity"."tenants" SET "enabled" = true WHERE "name" = 'closed'`);
      }
    });

    it('400 invalid_scope for a refresh asking more than was granted; 400 invalid_grant for a wrong refresh token', async () => {
      const tokens = (await (await exchange(await code('carol'))).json()) as { refresh_token: string };
      const wider = await token({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        scope: 'openid users:manage',
        client_id: 'web',
        client_secret: secrets.web,
      });
      expect(await errorOf(wider)).toMatchObject({ status: 400, error: 'invalid_scope' });
      const unknown = await token({
        grant_type: 'refresh_token',
        refresh_token: 'nope',
        client_id: 'web',
        client_secret: secrets.web,
      });
      expect(await errorOf(unknown)).toMatchObject({ status: 400, error: 'invalid_grant' });
    });
  });

  describe('userinfo', () => {
    it('401 invalid_token for no token, a malformed or forged one, and an ID token', async () => {
      const body = (await (await exchange(await code('carol'))).json()) as { id_token: string; access_token: string };
      const [header, payload] = body.access_token.split('.');
      for (const authorization of [
        undefined,
        'Bearer',
        'Bearer not.a.token',
        `Bearer ${header}.${payload}.${randomBytes(256).toString('base64url')}`,
        `Bearer ${body.id_token}`,
      ]) {
        for (const method of ['GET', 'POST']) {
          const res = await fetch(`${base}/userinfo`, {
            method,
            headers: authorization ? { authorization } : {},
          });
          expect(res.status).toBe(401);
          expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
          expect(await res.json()).toMatchObject({ error: 'invalid_token' });
        }
      }
    });
  });

  it('has no Marketplace token endpoint outside the Marketplace edition', async () => {
    const res = await fetch(`${service.url}/api/v1/auth/external-service-token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: 'web', client_secret: secrets.web }),
    });
    expect(res.status).toBe(404);
  });

  describe('revoke', () => {
    const revoke = (form: Record<string, string>, contentType = 'application/x-www-form-urlencoded') =>
      fetch(`${base}/revoke`, {
        method: 'POST',
        headers: { 'content-type': contentType },
        body: new URLSearchParams(form),
      });

    it('400 invalid_request without a token or client credentials, or with a body that is not a form', async () => {
      expect(await errorOf(await revoke({ client_id: 'web', client_secret: secrets.web }))).toMatchObject({
        status: 400,
        error: 'invalid_request',
      });
      expect(await errorOf(await revoke({ token: 'x' }))).toMatchObject({ status: 400, error: 'invalid_request' });
      const json = await fetch(`${base}/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: 'x', client_id: 'web', client_secret: secrets.web }),
      });
      expect(await errorOf(json)).toMatchObject({ status: 400, error: 'invalid_request' });
    });

    it('401 invalid_client for a wrong secret; 200 and an empty body for any token otherwise', async () => {
      expect(await errorOf(await revoke({ token: 'x', client_id: 'web', client_secret: 'wrong' }))).toMatchObject({
        status: 401,
        error: 'invalid_client',
      });
      for (const value of ['x', 'a.b.c', 'é'.repeat(1000)]) {
        const res = await revoke({ token: value, client_id: 'web', client_secret: secrets.web });
        expect(res.status).toBe(200);
        expect(await res.text()).toBe('');
      }
    });
  });
});
