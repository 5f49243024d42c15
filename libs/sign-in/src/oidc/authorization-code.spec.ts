import 'reflect-metadata';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService } from '@fed/server';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { DataSource } from 'typeorm';
import { bootAuthService, insertTenant, registryOf } from '../testing/boot-auth-service';
import { ScopeProbeModule } from '../testing/scope-probe.module';
import { TestBrowser } from '@fed/testing';

const REDIRECT_URI = 'https://app.example.com/callback';
const PASSWORD = 'correct horse battery staple';

describe('authorization code flow with openid-client as the relying party (spec document 1)', () => {
  let database: TestDatabase;
  let service: RunningService;
  let dataSource: DataSource;
  let issuer: string;
  const secrets: Record<string, string> = {};
  const userIds: Record<string, string> = {};

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await bootAuthService({ databaseUrl: database.url, features: [ScopeProbeModule] });
    issuer = service.config.auth.issuer;
    dataSource = service.nest.get(DataSource);
    const { clients, users } = registryOf(service);
    await insertTenant(service, {
      id: '22222222-2222-4222-8222-222222222222',
      name: 'acme',
      type: 'enterprise',
      endpoint: 'https://acme.example.com',
      enabled: true,
    });
    for (const [clientId, consentRequired, publicationStatus] of [
      ['web', true, 'Published'],
      ['quiet', false, 'Published'],
      ['beta', false, 'Unpublished'],
    ] as const) {
      const issued = await clients.create({
        clientId,
        name: `${clientId} app`,
        grantTypes: ['authorization_code', 'refresh_token'],
        scopes: ['openid', 'profile', 'email', 'chat:exec'],
        redirectUris: [REDIRECT_URI],
        consentRequired,
        publicationStatus,
      });
      secrets[clientId] = issued.clientSecret;
    }
    // A first-party browser app registered by the operator (the web app's kind): no secret, PKCE only.
    await clients.create({
      clientId: 'spa',
      name: 'Browser app',
      grantTypes: ['authorization_code', 'refresh_token'],
      scopes: ['openid', 'profile', 'email', 'chat:exec'],
      redirectUris: [REDIRECT_URI],
      consentRequired: false,
      publicClient: true,
    });
    for (const [login, tenantName, developer] of [
      ['alice', undefined, false],
      ['bob', 'acme', true],
    ] as const) {
      const { user } = await users.create({
        email: `${login}@example.com`,
        username: login,
        displayName: `${login} example`,
        password: PASSWORD,
        role: 'user',
        status: 'approved',
        developer,
        tenantName,
        organization: { id: 'org-1', label: 'Research' },
        job: { id: 'job-1', label: 'Engineer' },
        bio: 'likes <b>tags</b>',
      });
      userIds[login] = user.id;
    }
    await dataSource.query(
      'UPDATE "identity"."users" SET "idp_subject" = $1, "email_verified" = true WHERE "id" = $2',
      ['idp|bob', userIds.bob],
    );
  });

  afterAll(async () => {
    await service?.shutdown('test');
    await database?.drop();
  });

  async function relyingParty(clientId: string): Promise<oidc.Configuration> {
    const auth = clientId in secrets ? oidc.ClientSecretPost(secrets[clientId]) : oidc.None();
    return oidc.discovery(new URL(issuer), clientId, undefined, auth, { execute: [oidc.allowInsecureRequests] });
  }

  interface Login {
    login: string;
    client: string;
    browser?: TestBrowser;
    scope?: string;
    expectConsent?: boolean;
    expectLogin?: boolean;
    /** Sees each token-endpoint response body as sent. */
    onResponse?: (body: unknown) => void;
  }

  /** Drives the browser side; returns the callback URL the provider redirected to and the RP's check values. */
  async function authorize(options: Login) {
    const config = await relyingParty(options.client);
    const browser = options.browser ?? new TestBrowser(service.url);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: options.scope ?? 'openid profile email chat:exec',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
      ui_locales: 'en',
    });
    let page = await browser.visit(url.href);
    const pages: string[] = [];
    if (options.expectLogin ?? true) {
      expect(page.status).toBe(200);
      expect(page.html).toContain('name="password"');
      pages.push('login');
      page = await browser.submit(page, { login: options.login, password: PASSWORD });
    }
    if (page.html.includes('name="decision"')) {
      pages.push('consent');
      page = await browser.submit(page, { decision: 'allow' });
    }
    expect(pages.includes('consent')).toBe(options.expectConsent ?? true);
    expect(page.location).toBeDefined();
    return { config, browser, callback: new URL(page.location as string), verifier, state, nonce, pages };
  }

  async function signIn(options: Login) {
    const flow = await authorize(options);
    if (options.onResponse) {
      const see = options.onResponse;
      flow.config[oidc.customFetch] = async (url, init) => {
        const response = await fetch(url, init as RequestInit);
        if (url.endsWith('/token')) see(await response.clone().json());
        return response;
      };
    }
    const tokens = await oidc.authorizationCodeGrant(flow.config, flow.callback, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    return { ...flow, tokens };
  }

  const probe = (token: string) =>
    fetch(`${service.url}/probe/chat`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);

  it('discovers the provider, logs in through the forms, consents, and exchanges the code with PKCE', async () => {
    const responses: unknown[] = [];
    const { callback, state, tokens, pages } = await signIn({
      login: 'alice',
      client: 'web',
      onResponse: (body) => responses.push(body),
    });
    // The body as sent (openid-client lower-cases token_type).
    expect(responses).toEqual([expect.objectContaining({ token_type: 'Bearer' })]);
    expect(pages).toEqual(['login', 'consent']);
    expect(callback.origin + callback.pathname).toBe(REDIRECT_URI);
    expect(callback.searchParams.get('state')).toBe(state);
    expect(Object.keys(tokens).sort()).toEqual(
      ['access_token', 'expires_in', 'id_token', 'refresh_expires_in', 'refresh_token', 'scope', 'token_type'].sort(),
    );
    expect(tokens.scope).toBe('openid profile email chat:exec');
    expect(tokens.expires_in).toBe(300);
    expect(tokens.refresh_expires_in).toBe(1800);

    // Signatures against the published JWKS, RS256 with kid.
    const jwks = createRemoteJWKSet(new URL(`${service.url}/federation/auth/v1/jwks`));
    for (const token of [tokens.access_token, tokens.id_token as string]) {
      const header = decodeProtectedHeader(token);
      expect(header).toEqual({ alg: 'RS256', typ: 'JWT', kid: expect.any(String) });
      await jwtVerify(token, jwks, { algorithms: ['RS256'], issuer });
    }
    const access = decodeJwt(tokens.access_token);
    expect(access).toMatchObject({
      iss: issuer,
      sub: userIds.alice,
      typ: 'Bearer',
      azp: 'web',
      aud: 'broker',
      scope: 'openid profile email chat:exec',
      sid: expect.any(String),
      auth_time: expect.any(Number),
      'allowed-origins': ['https://app.example.com'],
      realm_access: { roles: ['user'] },
      tenant: { id: expect.any(String), type: 'saas', endpoint: service.config.http.publicUrl },
    });
    expect(access).not.toHaveProperty('idp');
    expect(access).not.toHaveProperty('preferred_username');
    expect(typeof access.jti).toBe('string');
    const id = tokens.claims() as Record<string, unknown>;
    expect(id).toMatchObject({ iss: issuer, sub: userIds.alice, aud: 'web', azp: 'web', typ: 'ID', sid: access.sid });
    expect(id.auth_time).toBe(access.auth_time);
    expect(id).not.toHaveProperty('idp');
    expect(await probe(tokens.access_token)).toBe(200);
  });

  it('puts the identity-provider claims of a tenant user in the tokens, display name and e-mail in the ID token only', async () => {
    const { tokens } = await signIn({ login: 'bob', client: 'quiet', expectConsent: false });
    const access = decodeJwt(tokens.access_token);
    const id = tokens.claims() as Record<string, unknown>;
    const shared = {
      sub: 'idp|bob',
      preferred_username: 'bob@example.com',
      organization: 'Research',
      job: 'Engineer',
      bio: 'likes <b>tags</b>',
    };
    expect(access.idp).toEqual(shared);
    expect(id.idp).toEqual({ ...shared, display_name: 'bob example', email: 'bob@example.com' });
    expect(access.tenant).toEqual({
      id: '22222222-2222-4222-8222-222222222222',
      type: 'enterprise',
      endpoint: 'https://acme.example.com',
    });
    expect(access.realm_access).toEqual({ roles: ['user', 'developer'] });
  });

  it('answers userinfo with GET and POST alike; idp only for tenant users', async () => {
    const alice = await signIn({ login: 'alice', client: 'quiet', expectConsent: false });
    const info = await oidc.fetchUserInfo(alice.config, alice.tokens.access_token, userIds.alice);
    expect(info).toEqual({
      sub: userIds.alice,
      name: 'alice example',
      preferred_username: 'alice',
      email: 'alice@example.com',
      email_verified: false,
    });
    const bob = await signIn({ login: 'bob', client: 'quiet', expectConsent: false });
    const url = new URL(`${service.url}/federation/auth/v1/userinfo`);
    const viaGet = await oidc.fetchProtectedResource(bob.config, bob.tokens.access_token, url, 'GET');
    const viaPost = await oidc.fetchProtectedResource(bob.config, bob.tokens.access_token, url, 'POST');
    expect(viaGet.status).toBe(200);
    expect(viaPost.status).toBe(200);
    const body = (await viaGet.json()) as { idp?: unknown };
    expect(await viaPost.json()).toEqual(body);
    expect(body.idp).toEqual({
      sub: 'idp|bob',
      name: 'bob example',
      preferred_username: 'bob@example.com',
      email: 'bob@example.com',
      email_verified: true,
      organization: { id: 'org-1', label: 'Research' },
      job: { id: 'job-1', label: 'Engineer' },
      bio: 'likes <b>tags</b>',
    });
  });

  it('signs a user in to an operator-registered public client with PKCE alone, and rotates its refresh token', async () => {
    const { config, tokens, browser } = await signIn({ login: 'alice', client: 'spa', expectConsent: false });
    expect(decodeJwt(tokens.access_token)).toMatchObject({
      azp: 'spa',
      sub: userIds.alice,
      scope: 'openid profile email chat:exec',
    });
    expect(await probe(tokens.access_token)).toBe(200);
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token as string)).rejects.toMatchObject({
      error: 'invalid_grant',
    });

    // Its code is bound by PKCE alone: without the verifier it is refused, and a secret is refused outright.
    const flow = await authorize({ login: 'alice', client: 'spa', expectConsent: false, expectLogin: false, browser });
    const code = flow.callback.searchParams.get('code') as string;
    const exchange = (form: Record<string, string>) =>
      fetch(`${service.url}/federation/auth/v1/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT_URI,
          client_id: 'spa',
          ...form,
        }),
      }).then(async (r) => [r.status, ((await r.json()) as { error: string }).error]);
    expect(await exchange({ client_secret: 'x'.repeat(43) })).toEqual([401, 'invalid_client']);
    expect(await exchange({})).toEqual([400, 'invalid_grant']);
  });

  it('rotates the refresh token on every refresh; a used one fails with invalid_grant and revokes the family', async () => {
    const { config, tokens } = await signIn({ login: 'alice', client: 'quiet', expectConsent: false });
    const first = tokens.refresh_token as string;
    const second = await oidc.refreshTokenGrant(config, first);
    expect(second.refresh_token).toBeDefined();
    expect(second.refresh_token).not.toBe(first);
    expect(second.refresh_expires_in).toBeGreaterThan(0);
    expect(decodeJwt(second.access_token).sub).toBe(userIds.alice);
    expect(await probe(second.access_token)).toBe(200);

    await expect(oidc.refreshTokenGrant(config, first)).rejects.toMatchObject({ error: 'invalid_grant' });
    // The whole family is gone: the newest refresh token and the access tokens issued with the family.
    await expect(oidc.refreshTokenGrant(config, second.refresh_token as string)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    expect(await probe(second.access_token)).toBe(401);
    expect(await probe(tokens.access_token)).toBe(401);
  });

  it('revokes an access token: 200 with an empty body, then the API refuses it', async () => {
    const { config, tokens } = await signIn({ login: 'alice', client: 'quiet', expectConsent: false });
    expect(await probe(tokens.access_token)).toBe(200);
    await oidc.tokenRevocation(config, tokens.access_token);
    expect(await probe(tokens.access_token)).toBe(401);
    const info = await fetch(`${service.url}/federation/auth/v1/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(info.status).toBe(401);
    expect(await info.json()).toMatchObject({ error: 'invalid_token' });
    // Revoking a refresh token ends it too; unknown tokens are answered the same way.
    await oidc.tokenRevocation(config, tokens.refresh_token as string);
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token as string)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    const unknown = await fetch(`${service.url}/federation/auth/v1/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: 'not-a-token', client_id: 'quiet', client_secret: secrets.quiet }),
    });
    expect(unknown.status).toBe(200);
    expect(await unknown.text()).toBe('');
  });

  it('asks for consent once per application, and again with every requested scope when a request asks for one not agreed to', async () => {
    const browser = new TestBrowser(service.url);
    const first = await authorize({ login: 'bob', client: 'web', browser });
    expect(first.pages).toEqual(['login', 'consent']);
    // Same browser session: neither the login nor the consent page.
    const again = await authorize({ login: 'bob', client: 'web', browser, expectLogin: false, expectConsent: false });
    expect(again.callback.searchParams.get('code')).toBeTruthy();
    // A new browser logs in but is not asked again.
    const elsewhere = await authorize({ login: 'bob', client: 'web', expectConsent: false });
    expect(elsewhere.pages).toEqual(['login']);

    await dataSource.query(
      `UPDATE "identity"."clients" SET "scopes" = array_append("scopes", 'chat:history') WHERE "client_id" = 'web'`,
    );
    // The client cache's entry is a second old: the next request reads the new row (and is served the old one).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const config = await relyingParty('web');
    const urlFor = async (scope: string) =>
      oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT_URI,
        scope,
        state: 's',
        nonce: 'n',
        code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
        code_challenge_method: 'S256',
      }).href;
    // The application's new scope is not asked for: nothing new to agree to.
    const unchanged = await browser.visit(await urlFor('openid chat:exec'));
    expect(new URL(unchanged.location as string).searchParams.get('code')).toBeTruthy();
    // Asked for, it is shown with every scope of the request (and only those), and recorded once agreed.
    const page = await browser.visit(await urlFor('openid chat:exec chat:history'));
    expect(page.html).toContain('name="decision"');
    for (const scope of ['openid', 'chat:exec', 'chat:history']) expect(page.html).toContain(`<code>${scope}</code>`);
    for (const scope of ['profile', 'email']) expect(page.html).not.toContain(`<code>${scope}</code>`);
    const done = await browser.submit(page, { decision: 'allow' });
    expect(new URL(done.location as string).searchParams.get('code')).toBeTruthy();
    const [{ scopes }] = await dataSource.query(
      `SELECT "scopes" FROM "identity"."consents" WHERE "client_id" = 'web' AND "user_id" = $1`,
      [userIds.bob],
    );
    expect(scopes).toEqual(['chat:exec', 'chat:history', 'email', 'openid', 'profile']);
    const later = await authorize({
      login: 'bob',
      client: 'web',
      scope: 'openid profile chat:history',
      expectConsent: false,
    });
    expect(later.pages).toEqual(['login']);
  });

  it('refuses the code of an Unpublished application to a user without the developer role', async () => {
    const refused = await authorize({ login: 'alice', client: 'beta', expectConsent: false });
    await expect(
      oidc.authorizationCodeGrant(refused.config, refused.callback, {
        pkceCodeVerifier: refused.verifier,
        expectedState: refused.state,
        expectedNonce: refused.nonce,
      }),
    ).rejects.toMatchObject({ error: 'unauthorized_client', status: 400 });
    const { tokens } = await signIn({ login: 'bob', client: 'beta', expectConsent: false });
    expect(decodeJwt(tokens.access_token).azp).toBe('beta');
  });

  it('a denied consent redirects with access_denied and the state', async () => {
    const config = await relyingParty('web');
    const browser = new TestBrowser(service.url);
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid',
      state: 'st-1',
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
      ui_locales: 'en',
    });
    let page = await browser.visit(url.href);
    page = await browser.submit(page, { login: 'alice2@example.com', password: 'x' });
    expect(page.status).toBe(401);
    expect(page.html).toContain('The login or password is wrong.');
    await dataSource.query(`DELETE FROM "identity"."consents"`);
    page = await browser.submit(page, { login: 'alice', password: PASSWORD });
    expect(page.html).toContain('name="decision"');
    const denied = await browser.submit(page, { decision: 'deny' });
    const target = new URL(denied.location as string);
    expect(target.searchParams.get('error')).toBe('access_denied');
    expect(target.searchParams.get('state')).toBe('st-1');
    expect(target.searchParams.get('error_description')).toBeTruthy();
  });
});
