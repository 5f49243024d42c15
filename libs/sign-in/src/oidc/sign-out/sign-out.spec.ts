import 'reflect-metadata';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService } from '@fed/server';
import { TestBrowser } from '@fed/testing';
import * as oidc from 'openid-client';
import { bootAuthService, createApprovedUser, registryOf } from '../../testing/boot-auth-service';

const REDIRECT_URI = 'https://app.example.com/callback';
const SIGNED_OUT_URI = 'https://app.example.com/signed-out';
const OTHER_SIGNED_OUT_URI = 'https://other.example.com/bye';
const PASSWORD = 'correct horse battery staple';

/** The sign-out page: ends the provider session and the refresh-token families of that session. */
describe('sign-out (provider session and its refresh tokens)', () => {
  let database: TestDatabase;
  let service: RunningService;
  let signOutUrl: string;
  const secrets: Record<string, string> = {};

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await bootAuthService({ databaseUrl: database.url });
    signOutUrl = `${service.url}/federation/auth/v1/logout`;
    const { clients, users } = registryOf(service);
    for (const [clientId, postLogoutRedirectUris] of [
      ['web', [SIGNED_OUT_URI]],
      ['other', [OTHER_SIGNED_OUT_URI]],
    ] as const) {
      const issued = await clients.create({
        clientId,
        name: `${clientId} app`,
        grantTypes: ['authorization_code', 'refresh_token'],
        scopes: ['openid', 'chat:exec'],
        redirectUris: [REDIRECT_URI],
        postLogoutRedirectUris: [...postLogoutRedirectUris],
        consentRequired: false,
      });
      secrets[clientId] = issued.clientSecret;
    }
    await createApprovedUser(users, 'ada', { password: PASSWORD, role: 'user' });
    await createApprovedUser(users, 'bob', { password: PASSWORD, role: 'user' });
  });

  afterAll(async () => {
    await service?.shutdown('test');
    await database?.drop();
  });

  const relyingParty = (clientId: string) =>
    oidc.discovery(new URL(service.config.auth.issuer), clientId, undefined, oidc.ClientSecretPost(secrets[clientId]), {
      execute: [oidc.allowInsecureRequests],
    });

  /** Signs the browser in to `clientId` (with the form unless its session already covers it); returns the tokens. */
  async function signIn(browser: TestBrowser, clientId: string) {
    const config = await relyingParty(clientId);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid chat:exec',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    let page = await browser.visit(url.href);
    if (page.html.includes('name="password"')) page = await browser.submit(page, { login: 'ada', password: PASSWORD });
    const tokens = await oidc.authorizationCodeGrant(config, new URL(page.location as string), {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    return { config, tokens };
  }

  const refreshes = async (signedIn: Awaited<ReturnType<typeof signIn>>) => {
    const renewed = await oidc.refreshTokenGrant(signedIn.config, signedIn.tokens.refresh_token as string);
    signedIn.tokens = renewed;
    return renewed;
  };

  async function authorizeShowsLogin(browser: TestBrowser): Promise<boolean> {
    const config = await relyingParty('web');
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    return (await browser.visit(url.href)).html.includes('name="password"');
  }

  const signOutPage = (browser: TestBrowser, params: Record<string, string>) =>
    browser.visit(`${signOutUrl}?${new URLSearchParams(params)}`);

  it('ends the session and the refresh tokens of its logins, then returns to the registered URI with the state', async () => {
    const browser = new TestBrowser(service.url);
    const web = await signIn(browser, 'web');
    const other = await signIn(browser, 'other');
    await refreshes(web);

    const confirm = await signOutPage(browser, {
      id_token_hint: web.tokens.id_token as string,
      post_logout_redirect_uri: SIGNED_OUT_URI,
      state: 'st-1',
      ui_locales: 'en',
    });
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain('web app asks you to sign out.');
    expect(confirm.html).toContain('name="csrf"');
    const done = await browser.submit(confirm, { decision: 'sign_out' });
    expect(done.status).toBe(303);
    expect(done.location).toBe(`${SIGNED_OUT_URI}?state=st-1`);

    for (const signedIn of [web, other]) {
      await expect(refreshes(signedIn)).rejects.toMatchObject({ error: 'invalid_grant' });
    }
    const userinfo = await fetch(`${service.url}/federation/auth/v1/userinfo`, {
      headers: { authorization: `Bearer ${web.tokens.access_token}` },
    });
    expect(userinfo.status).toBe(401);
    expect(await authorizeShowsLogin(browser)).toBe(true);
  });

  it('does not follow an unregistered post_logout_redirect_uri, nor one of another client', async () => {
    const cases: Record<string, string>[] = [
      { client_id: 'web', post_logout_redirect_uri: 'https://evil.example.com/' },
      { client_id: 'web', post_logout_redirect_uri: `${SIGNED_OUT_URI}/` },
      { client_id: 'other', post_logout_redirect_uri: SIGNED_OUT_URI },
      { post_logout_redirect_uri: SIGNED_OUT_URI },
      { client_id: 'nobody', post_logout_redirect_uri: SIGNED_OUT_URI },
      { id_token_hint: 'not.a.token', post_logout_redirect_uri: SIGNED_OUT_URI },
    ];
    for (const params of cases) {
      const browser = new TestBrowser(service.url);
      await signIn(browser, 'web');
      const confirm = await signOutPage(browser, { ...params, state: 'st-2', ui_locales: 'en' });
      expect(confirm.html).not.toContain('post_logout_redirect_uri');
      const done = await browser.submit(confirm, { decision: 'sign_out' });
      expect({ params, status: done.status, location: done.location }).toEqual({
        params,
        status: 200,
        location: undefined,
      });
      expect(done.html).toContain('You are signed out');
      expect(await authorizeShowsLogin(browser)).toBe(true);
    }
  });

  it('refuses an ID token hint that names another client than client_id', async () => {
    const browser = new TestBrowser(service.url);
    const web = await signIn(browser, 'web');
    const confirm = await signOutPage(browser, {
      id_token_hint: web.tokens.id_token as string,
      client_id: 'other',
      post_logout_redirect_uri: OTHER_SIGNED_OUT_URI,
    });
    const done = await browser.submit(confirm, { decision: 'sign_out' });
    expect(done.location).toBeUndefined();
  });

  it('keeps the session and its tokens when the user stays signed in, and still returns to the application', async () => {
    const browser = new TestBrowser(service.url);
    const web = await signIn(browser, 'web');
    const confirm = await signOutPage(browser, { client_id: 'web', post_logout_redirect_uri: SIGNED_OUT_URI });
    const stayed = await browser.submit(confirm, { decision: 'stay' });
    expect(stayed.location).toBe(SIGNED_OUT_URI);
    await expect(refreshes(web)).resolves.toMatchObject({ token_type: 'bearer' });
    expect(await authorizeShowsLogin(browser)).toBe(false);
  });

  it('refuses a forged form (CSRF) and keeps the session', async () => {
    const browser = new TestBrowser(service.url);
    const web = await signIn(browser, 'web');
    const confirm = await signOutPage(browser, { client_id: 'web', post_logout_redirect_uri: SIGNED_OUT_URI });
    const forged = await browser.submit(confirm, { decision: 'sign_out', csrf: 'forged' });
    expect(forged.status).toBe(403);
    expect(forged.location).toBeUndefined();
    await expect(refreshes(web)).resolves.toMatchObject({ token_type: 'bearer' });
  });

  it('ends only this browser’s session: another browser of the same user stays signed in', async () => {
    const leaving = new TestBrowser(service.url);
    const staying = new TestBrowser(service.url);
    await signIn(leaving, 'web');
    const kept = await signIn(staying, 'web');
    const confirm = await signOutPage(leaving, {});
    await leaving.submit(confirm, { decision: 'sign_out' });
    await expect(refreshes(kept)).resolves.toMatchObject({ token_type: 'bearer' });
    expect(await authorizeShowsLogin(staying)).toBe(false);
  });

  it('asks nothing of a browser without a session: a registered return at once, else the signed-out page', async () => {
    const browser = new TestBrowser(service.url);
    const back = await signOutPage(browser, { client_id: 'web', post_logout_redirect_uri: SIGNED_OUT_URI, state: 's' });
    expect(back.location).toBe(`${SIGNED_OUT_URI}?state=s`);
    const page = await signOutPage(browser, { ui_locales: 'fr' });
    expect(page.status).toBe(200);
    expect(page.html).toContain('<html lang="fr"');
    expect(page.html).toContain('Vous êtes déconnecté');
  });

  it('accepts the request as a POST from the application too (a form without the page’s token)', async () => {
    const browser = new TestBrowser(service.url);
    await signIn(browser, 'web');
    const confirm = await browser.visit(signOutUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: 'web',
        post_logout_redirect_uri: SIGNED_OUT_URI,
        ui_locales: 'ar',
      }).toString(),
    });
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain('<html lang="ar" dir="rtl">');
    const done = await browser.submit(confirm, { decision: 'sign_out' });
    expect(done.location).toBe(SIGNED_OUT_URI);
  });

  it('signs a browser of one account in as another (prompt=login): the first is signed out as by sign-out, and the code is the second’s', async () => {
    const browser = new TestBrowser(service.url);
    const ada = await signIn(browser, 'web');
    const config = await relyingParty('web');
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid chat:exec',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      prompt: 'login',
      state: 'st-bob',
    });
    const login = await browser.visit(url.href);
    expect(login.html).toContain('name="password"');
    // Before the hand-over, oidc-provider answered with a form posted to its end-session route, which is not served.
    const done = await browser.submit(login, { login: 'bob', password: PASSWORD });
    expect(done.location).toMatch(new RegExp(`^${REDIRECT_URI}\\?code=`));
    const bob = await oidc.authorizationCodeGrant(config, new URL(done.location as string), {
      pkceCodeVerifier: verifier,
      expectedState: 'st-bob',
    });
    const bobId = (await registryOf(service).users.findByLogin('bob'))?.id;
    expect(bob.claims()?.sub).toBe(bobId);
    // Ada's session ended with her refresh tokens; the browser's session is Bob's now.
    await expect(refreshes(ada)).rejects.toMatchObject({ error: 'invalid_grant' });
    const again = await signIn(browser, 'other');
    expect(again.tokens.claims()?.sub).toBe(bobId);
  });

  it('keeps one sign-out: discovery lists no end_session_endpoint and the provider’s own route is gone', async () => {
    const discovery = (await (
      await fetch(`${service.config.auth.issuer}/.well-known/openid-configuration`)
    ).json()) as Record<string, unknown>;
    expect(discovery).not.toHaveProperty('end_session_endpoint');
    const own = await fetch(`${service.url}/federation/auth/v1/provider/logout`, { redirect: 'manual' });
    expect(own.status).toBe(404);
  });
});
