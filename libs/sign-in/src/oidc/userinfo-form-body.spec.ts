import 'reflect-metadata';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService } from '@fed/server';
import { TestBrowser } from '@fed/testing';
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { bootAuthService, createApprovedUser, registryOf } from '../testing/boot-auth-service';

const REDIRECT_URI = 'https://app.example.com/callback';
const PASSWORD = 'correct horse battery staple';
const VERIFIER = randomBytes(32).toString('base64url');
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');
const FORM = 'application/x-www-form-urlencoded';

/**
 * Userinfo with the access token in a form body (RFC 6750 2.2), as clients that cannot set headers
 * send it: the same answers and refusals as the header, and exactly one of the two (RFC 6750 3.1).
 * openid-client's fetchUserInfo only sends the header, so these requests are plain HTTP.
 */
describe('userinfo: the access token in a form body (RFC 6750 2.2)', () => {
  let database: TestDatabase;
  let service: RunningService;
  let base: string;
  const secrets: Record<string, string> = {};
  let serviceAccount = '';

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await bootAuthService({ databaseUrl: database.url });
    base = `${service.url}/federation/auth/v1`;
    const { clients, users } = registryOf(service);
    const web = await clients.create({
      clientId: 'web',
      name: 'web',
      grantTypes: ['authorization_code', 'refresh_token'],
      scopes: ['openid', 'profile', 'email'],
      redirectUris: [REDIRECT_URI],
      consentRequired: false,
    });
    secrets.web = web.clientSecret;
    const etl = await clients.create({
      clientId: 'etl',
      name: 'etl',
      grantTypes: ['client_credentials'],
      scopes: ['users:read'],
    });
    secrets.etl = etl.clientSecret;
    serviceAccount = etl.client.serviceAccountId as string;
    await createApprovedUser(users, 'carol', { password: PASSWORD, role: 'user' });
  });

  afterAll(async () => {
    await service?.shutdown('test');
    await database?.drop();
  });

  const token = async (form: Record<string, string>) => {
    const res = await fetch(`${base}/token`, {
      method: 'POST',
      headers: { 'content-type': FORM },
      body: new URLSearchParams(form),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { access_token: string; id_token?: string };
  };

  async function signIn(): Promise<{ access_token: string; id_token?: string }> {
    const browser = new TestBrowser(service.url);
    const params = new URLSearchParams({
      client_id: 'web',
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'openid profile email',
      state: 'xyz',
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
    });
    let page = await browser.visit(`${base}/authorize?${params}`);
    page = await browser.submit(page, { login: 'carol', password: PASSWORD });
    const code = new URL(page.location as string).searchParams.get('code') as string;
    return token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      client_id: 'web',
      client_secret: secrets.web as string,
      code_verifier: VERIFIER,
    });
  }

  const userinfo = (init: RequestInit & { query?: string } = {}) =>
    fetch(`${base}/userinfo${init.query ?? ''}`, { method: 'POST', ...init });
  const viaForm = (form: string, headers: Record<string, string> = {}) =>
    userinfo({ headers: { 'content-type': FORM, ...headers }, body: form });
  const answerOf = async (res: Response) => ({
    status: res.status,
    cacheControl: res.headers.get('cache-control'),
    body: (await res.json()) as Record<string, unknown>,
  });
  const refusalOf = async (res: Response) => ({
    status: res.status,
    challenge: res.headers.get('www-authenticate'),
    error: ((await res.json()) as { error: string }).error,
  });

  it('answers a user as the header does, with a charset in the content type too', async () => {
    const { access_token } = await signIn();
    const header = await answerOf(
      await fetch(`${base}/userinfo`, { headers: { authorization: `Bearer ${access_token}` } }),
    );
    expect(header.status).toBe(200);
    expect(header.body).toMatchObject({ preferred_username: 'carol', email: 'carol@example.com' });
    expect(await answerOf(await viaForm(new URLSearchParams({ access_token }).toString()))).toEqual(header);
    expect(
      await answerOf(
        await userinfo({
          headers: { 'content-type': `${FORM}; charset=UTF-8` },
          body: new URLSearchParams({ access_token, unrelated: 'ignored' }),
        }),
      ),
    ).toEqual(header);
    // The header with a form that holds no token is the header form.
    expect(await answerOf(await viaForm('unrelated=1', { authorization: `Bearer ${access_token}` }))).toEqual(header);
  });

  it("answers a service account's token with its subject", async () => {
    const { access_token } = await token({
      grant_type: 'client_credentials',
      client_id: 'etl',
      client_secret: secrets.etl as string,
    });
    const res = await viaForm(new URLSearchParams({ access_token }).toString());
    expect([res.status, await res.json()]).toEqual([200, { sub: serviceAccount }]);
  });

  it('400 invalid_request for the token in both the header and the body, or a repeated access_token', async () => {
    const { access_token } = await signIn();
    const both = await viaForm(new URLSearchParams({ access_token }).toString(), {
      authorization: `Bearer ${access_token}`,
    });
    expect(await refusalOf(both)).toEqual({
      status: 400,
      challenge: expect.stringMatching(/^Bearer realm="federation", error="invalid_request", error_description="/),
      error: 'invalid_request',
    });
    const twice = await viaForm(
      new URLSearchParams([
        ['access_token', access_token],
        ['access_token', 'x'],
      ]).toString(),
    );
    expect(await refusalOf(twice)).toMatchObject({ status: 400, error: 'invalid_request' });
    // A repeated parameter whose name holds a line break and a quote: still a clean 400, the header intact.
    const hostile = await viaForm(`a%0D%0AX-Injected%3A%201%22=1&a%0D%0AX-Injected%3A%201%22=2&access_token=x`);
    expect(hostile.headers.get('x-injected')).toBeNull();
    expect(await refusalOf(hostile)).toEqual({
      status: 400,
      challenge: expect.stringMatching(/error_description="parameter aX-Injected: 1 must not be repeated"$/),
      error: 'invalid_request',
    });
  });

  it('400 invalid_request for a form body over 64 KiB, and the connection closed', async () => {
    const { access_token } = await signIn();
    const large = await viaForm(new URLSearchParams({ access_token, pad: 'x'.repeat(70 * 1024) }).toString());
    expect(large.headers.get('connection')).toBe('close');
    expect(await refusalOf(large)).toMatchObject({ status: 400, error: 'invalid_request' });
    // Sent in chunks without a length: cut off at the limit, not read to the end.
    const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${base}/userinfo`, { method: 'POST', headers: { 'content-type': FORM } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.write(`access_token=${access_token}&pad=`);
      for (let sent = 0; sent < 80; sent += 1) req.write('y'.repeat(1024));
      req.end();
    });
    expect(chunked.status).toBe(400);
    expect(JSON.parse(chunked.body)).toMatchObject({ error: 'invalid_request' });
  });

  it('401 invalid_token for a forged, malformed, ID or revoked token in the body, and for none', async () => {
    const tokens = await signIn();
    const [header, payload] = tokens.access_token.split('.');
    for (const value of [
      'not.a.token',
      'x',
      `${header}.${payload}.${randomBytes(256).toString('base64url')}`,
      tokens.id_token as string,
    ]) {
      expect(await refusalOf(await viaForm(new URLSearchParams({ access_token: value }).toString()))).toEqual({
        status: 401,
        challenge: expect.stringMatching(/^Bearer realm="federation", error="invalid_token"/),
        error: 'invalid_token',
      });
    }
    for (const form of ['', 'access_token=', 'token=abc']) {
      expect(await refusalOf(await viaForm(form))).toMatchObject({ status: 401, error: 'invalid_token' });
    }
    const revoked = await signIn();
    const revoke = await fetch(`${base}/revoke`, {
      method: 'POST',
      headers: { 'content-type': FORM },
      body: new URLSearchParams({
        token: revoked.access_token,
        client_id: 'web',
        client_secret: secrets.web as string,
      }),
    });
    expect(revoke.status).toBe(200);
    const after = await viaForm(new URLSearchParams({ access_token: revoked.access_token }).toString());
    expect(await refusalOf(after)).toMatchObject({ status: 401, error: 'invalid_token' });
  });

  it('401 for a token anywhere else: a JSON body, the query string, or GET with a form content type', async () => {
    const { access_token } = await signIn();
    const json = await userinfo({
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ access_token }),
    });
    expect(await refusalOf(json)).toMatchObject({ status: 401, error: 'invalid_token' });
    // RFC 6750 2.3 (the URI query) is not accepted: tokens in URLs end up in logs.
    const query = await userinfo({ query: `?${new URLSearchParams({ access_token })}` });
    expect(await refusalOf(query)).toMatchObject({ status: 401, error: 'invalid_token' });
    const get = await fetch(`${base}/userinfo`, { method: 'GET', headers: { 'content-type': FORM } });
    expect(await refusalOf(get)).toMatchObject({ status: 401, error: 'invalid_token' });
  });
});
