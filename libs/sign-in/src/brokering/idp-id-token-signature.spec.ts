import 'reflect-metadata';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { realmServiceFor } from '@fed/identity';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService } from '@fed/server';
import { TestBrowser } from '@fed/testing';
import * as oidc from 'openid-client';
import { DataSource } from 'typeorm';
import { visibleText } from '../testing/account-forms';
import { bootAuthService } from '../testing/boot-auth-service';
import { type IdTokenSigning, type ScriptedIdp, startScriptedIdp } from '../testing/scripted-idp';

const REDIRECT_URI = 'https://app.example.com/callback';
const CLIENT_SECRET = 'web-client-secret-of-at-least-32-characters';

const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));

// Document 1: an enterprise tenant's staff sign in at the tenant's provider; the ID token it answers is
// the provider's only if its signature checks against the provider's JWKS. Over plain-http loopback (allowed
// for development) TLS vouches for nothing, so the signature is all there is.
describe("an identity provider's ID token is checked against the provider's keys at the brokering callback", () => {
  let database: TestDatabase;
  let service: RunningService;
  let dataSource: DataSource;
  let upstream: ScriptedIdp;
  let client: oidc.Configuration;

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await bootAuthService({ databaseUrl: database.url });
    dataSource = service.nest.get(DataSource);
    upstream = await startScriptedIdp({
      claims: { sub: 'alice', name: 'Alice Liddell', email: 'alice@acme.example', email_verified: true },
    });
    await realmServiceFor(dataSource, service.nest.get<ServiceConfig>(SERVICE_CONFIG)).import({
      realm: 'federation',
      tenants: [
        {
          name: 'acme',
          type: 'enterprise',
          endpoint: 'https://acme.example',
          idp: {
            issuer: upstream.issuer,
            clientId: upstream.clientId,
            clientSecret: upstream.clientSecret,
            domains: ['acme.example'],
          },
        },
      ],
      clients: [
        {
          clientId: 'web',
          name: 'Web',
          secret: CLIENT_SECRET,
          grantTypes: ['authorization_code'],
          redirectUris: [REDIRECT_URI],
          scopes: ['openid', 'profile', 'email'],
        },
      ],
    });
    client = await oidc.discovery(
      new URL(service.config.auth.issuer),
      'web',
      undefined,
      oidc.ClientSecretPost(CLIENT_SECRET),
      { execute: [oidc.allowInsecureRequests] },
    );
  }, 60_000);

  afterAll(async () => {
    await upstream?.stop();
    await service?.shutdown('test');
    await database?.drop();
  });

  /** The `web` application's sign-in sent to acme's provider (idp_hint), up to what the browser sees after the callback. */
  async function signInUpstream(signing: IdTokenSigning) {
    upstream.signing = signing;
    const browser = new TestBrowser(service.url);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(client, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid profile email',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      ui_locales: 'en',
      idp_hint: 'acme',
    });
    const toUpstream = await browser.visit(url.href);
    expect(toUpstream.location?.startsWith(`${upstream.issuer}/authorize?`)).toBe(true);
    // The provider signs in at once and sends the browser to the callback, which the browser follows.
    const afterCallback = await browser.visit(toUpstream.location as string);
    return { browser, afterCallback, verifier, state };
  }

  const linkedUsers = async () =>
    (await dataSource.query(`SELECT count(*)::int AS n FROM "identity"."users" WHERE "idp_subject" = 'alice'`))[0]
      .n as number;

  it.each([
    ['signed by a key outside the provider’s JWKS under the same kid', 'forged'],
    ['with alg "none"', 'none'],
    ['signed HS256 with the client secret', 'HS256'],
  ] as const)(
    'refuses an ID token %s: a clear 502 page, no session, no user',
    async (_title, signing) => {
      const { browser, afterCallback } = await signInUpstream(signing);
      expect(afterCallback.status).toBe(502);
      expect(afterCallback.url).toContain('/federation/auth/v1/idp/callback');
      expect(visibleText(afterCallback.html).replace(/&#39;/g, "'")).toContain(
        "Your organization's sign-in service sent an answer that could not be verified, so you were not signed in.",
      );
      // No result for the interaction, no login: the flow cookie is spent and nothing else was set.
      expect(browser.cookieNames().some((name) => name.startsWith('fed_idp_result'))).toBe(false);
      expect(browser.rawSetCookies.filter((cookie) => /^_session=/.test(cookie))).toEqual([]);
      expect(await linkedUsers()).toBe(0);
    },
    30_000,
  );

  it('still signs in with the genuine ID token: consent, a code, tokens naming the upstream subject', async () => {
    const { browser, afterCallback, verifier, state } = await signInUpstream('genuine');
    expect(afterCallback.status).toBe(200);
    expect(afterCallback.html).toContain('name="decision"');
    const done = await browser.submit(afterCallback, { decision: 'allow' });
    expect(done.location?.startsWith(REDIRECT_URI)).toBe(true);
    const tokens = await oidc.authorizationCodeGrant(client, new URL(done.location as string), {
      pkceCodeVerifier: verifier,
      expectedState: state,
      idTokenExpected: true,
    });
    expect(claimsOf(tokens.access_token).idp).toMatchObject({ sub: 'alice' });
    expect(await linkedUsers()).toBe(1);
  }, 30_000);
});
