import 'reflect-metadata';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService } from '@fed/server';
import { decodeJwt } from 'jose';
import { createHash, randomBytes } from 'node:crypto';
import { bootAuthService, registryOf } from '../../testing/boot-auth-service';
import { ScopeProbeModule } from '../../testing/scope-probe.module';
import { TestBrowser } from '@fed/testing';

const REDIRECT_URI = 'https://app.example.com/callback';
const PASSWORD = 'correct horse battery staple';
const ROUNDS = 30;

interface TokenBody {
  access_token: string;
  id_token: string;
  refresh_token: string;
  scope: string;
}

/**
 * Single use of codes and refresh tokens under concurrency, over HTTP on the real PostgreSQL: a
 * second use revokes the login's family, and nothing issued in a race outlives that revocation.
 */
describe('token families: codes and refresh tokens used twice at once (RFC 6749 4.1.2, 6, 10.4)', () => {
  let database: TestDatabase;
  let service: RunningService;
  let base: string;
  let secret: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await bootAuthService({ databaseUrl: database.url, features: [ScopeProbeModule] });
    base = `${service.url}/federation/auth/v1`;
    const { clients, users } = registryOf(service);
    secret = (
      await clients.create({
        clientId: 'web',
        name: 'web app',
        grantTypes: ['authorization_code', 'refresh_token'],
        scopes: ['openid', 'profile', 'email', 'chat:exec'],
        redirectUris: [REDIRECT_URI],
        consentRequired: false,
      })
    ).clientSecret;
    await users.create({
      email: 'alice@example.com',
      username: 'alice',
      displayName: 'alice',
      password: PASSWORD,
      role: 'user',
      status: 'approved',
    });
  });

  afterAll(async () => {
    await service?.shutdown('test');
    await database?.drop();
  });

  const newVerifier = () => randomBytes(32).toString('base64url');

  /** A code of a new login (a new browser, so a new family), with its PKCE verifier. */
  async function authorizationCode(scope = 'openid profile email chat:exec') {
    const verifier = newVerifier();
    const browser = new TestBrowser(service.url);
    const query = new URLSearchParams({
      client_id: 'web',
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope,
      state: 'st',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    let page = await browser.visit(`${base}/authorize?${query}`);
    page = await browser.submit(page, { login: 'alice', password: PASSWORD });
    const code = new URL(page.location as string).searchParams.get('code') as string;
    expect(code).toBeTruthy();
    return { code, verifier };
  }

  const token = (form: Record<string, string>) =>
    fetch(`${base}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: 'web', client_secret: secret, ...form }),
    });
  const exchange = (code: string, verifier: string, extra: Record<string, string> = {}) =>
    token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier, ...extra });
  const refresh = (refreshToken: string, extra: Record<string, string> = {}) =>
    token({ grant_type: 'refresh_token', refresh_token: refreshToken, ...extra });
  const answerOf = async (res: Response) => ({
    status: res.status,
    body: (await res.json()) as Record<string, string>,
  });
  const tokensOf = async (res: Response) => {
    expect(res.status).toBe(200);
    return (await res.json()) as TokenBody;
  };
  const probe = (accessToken: string) =>
    fetch(`${service.url}/probe/chat`, { headers: { authorization: `Bearer ${accessToken}` } }).then((r) => r.status);

  async function signIn(scope?: string): Promise<TokenBody> {
    const { code, verifier } = await authorizationCode(scope);
    return tokensOf(await exchange(code, verifier));
  }

  /** One answer is 200, the other the reuse's `invalid_grant`; returns the tokens of the 200. */
  async function oneWinsOneDetectsReuse(requests: Promise<Response>[]): Promise<TokenBody> {
    const answers = await Promise.all(requests.map(async (request) => answerOf(await request)));
    const won = answers.filter((answer) => answer.status === 200);
    const lost = answers.filter((answer) => answer.status !== 200);
    expect(won).toHaveLength(1);
    expect(lost).toEqual([
      {
        status: 400,
        body: { error: 'invalid_grant', error_description: expect.stringContaining('already used') },
      },
    ]);
    return won[0].body as unknown as TokenBody;
  }

  /** Nothing of the family works any more: no refresh token refreshes, no access token is accepted. */
  async function expectFamilyRevoked(refreshTokens: string[], accessTokens: string[]): Promise<void> {
    for (const refreshToken of refreshTokens) {
      expect(await answerOf(await refresh(refreshToken))).toMatchObject({
        status: 400,
        body: { error: 'invalid_grant' },
      });
    }
    for (const accessToken of accessTokens) expect(await probe(accessToken)).toBe(401);
  }

  it(`of two concurrent refreshes with one token, one gets tokens and the other revokes the family, every one of them (${ROUNDS} races)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const first = await signIn();
      const won = await oneWinsOneDetectsReuse([refresh(first.refresh_token), refresh(first.refresh_token)]);
      await expectFamilyRevoked([first.refresh_token, won.refresh_token], [first.access_token, won.access_token]);
    }
  }, 120_000);

  it(`of two concurrent exchanges of one code, one gets tokens and the other revokes them (${ROUNDS} races)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { code, verifier } = await authorizationCode();
      const won = await oneWinsOneDetectsReuse([exchange(code, verifier), exchange(code, verifier)]);
      await expectFamilyRevoked([won.refresh_token], [won.access_token]);
    }
  }, 120_000);

  it('checks redirect_uri and PKCE before using the code up: the client still exchanges it, and a junk replay revokes nothing', async () => {
    const { code, verifier } = await authorizationCode();
    for (const wrong of [
      exchange(code, newVerifier()),
      exchange(code, verifier, { redirect_uri: 'https://app.example.com/other' }),
    ]) {
      expect(await answerOf(await wrong)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    }
    const tokens = await tokensOf(await exchange(code, verifier));

    // Whoever replays the code without its verifier learns nothing and breaks nothing.
    expect(await answerOf(await exchange(code, newVerifier()))).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'PKCE verification failed' },
    });
    expect(await probe(tokens.access_token)).toBe(200);
    const refreshed = await tokensOf(await refresh(tokens.refresh_token));

    // A replay that passes every check is a second use: it revokes what the code gave.
    expect(await answerOf(await exchange(code, verifier))).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant', error_description: expect.stringContaining('already used') },
    });
    await expectFamilyRevoked([refreshed.refresh_token], [tokens.access_token, refreshed.access_token]);
  });

  it('narrows the tokens of a refresh but not its refresh token (RFC 6749 6); a scope never granted is invalid_scope', async () => {
    const first = await signIn('openid profile chat:exec');
    expect(first.scope).toBe('openid profile chat:exec');

    const narrowed = await tokensOf(await refresh(first.refresh_token, { scope: 'openid chat:exec' }));
    expect(narrowed.scope).toBe('openid chat:exec');
    expect(decodeJwt(narrowed.access_token).scope).toBe('openid chat:exec');
    expect(decodeJwt(narrowed.id_token)).not.toHaveProperty('name');

    // `email` is the client's, but this login never granted it; the refused request uses nothing up.
    expect(await answerOf(await refresh(narrowed.refresh_token, { scope: 'openid email' }))).toMatchObject({
      status: 400,
      body: { error: 'invalid_scope' },
    });

    const restored = await tokensOf(await refresh(narrowed.refresh_token));
    expect(restored.scope).toBe('openid profile chat:exec');
    expect(decodeJwt(restored.access_token).scope).toBe('openid profile chat:exec');
    expect(decodeJwt(restored.id_token)).toHaveProperty('name', 'alice');
    expect(await probe(restored.access_token)).toBe(200);
  });
});
