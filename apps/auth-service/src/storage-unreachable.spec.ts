import 'reflect-metadata';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService } from '@fed/server';
import { TcpProxy } from '@fed/testing';
import { bootAuthService, registryOf } from '@fed/sign-in/testing';

/** The spec's 502 `bad_gateway` rows: the service's own storage cannot be reached (connection cut). */
describe('auth-service with its database unreachable', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let service: RunningService;
  let secret: string;
  let otherSecret: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    proxy = await TcpProxy.start(database.url);
    service = await bootAuthService({ databaseUrl: proxy.urlFor(database.url), env: { EDITION: 'marketplace' } });
    const { clients } = registryOf(service);
    secret = (
      await clients.create({ clientId: 'etl', name: 'etl', grantTypes: ['client_credentials'], scopes: ['logs:read'] })
    ).clientSecret;
    otherSecret = (
      await clients.create({
        clientId: 'etl2',
        name: 'etl2',
        grantTypes: ['client_credentials'],
        scopes: ['logs:read'],
      })
    ).clientSecret;
    await clients.create({
      clientId: 'web',
      name: 'web',
      grantTypes: ['authorization_code'],
      scopes: ['openid'],
      redirectUris: ['https://app.example.com/cb'],
    });
  });

  afterAll(async () => {
    await proxy?.restore().catch(() => undefined);
    await service?.shutdown('test');
    await proxy?.close();
    await database?.drop();
  });

  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const token = (clientId = 'etl', clientSecret = secret) =>
    fetch(`${service.url}/federation/auth/v1/token`, {
      method: 'POST',
      headers: form,
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: clientSecret,
      }),
    });

  it('answers 502 bad_gateway at the token, userinfo, revoke and Marketplace endpoints, then recovers', async () => {
    const issued = await token();
    expect(issued.status).toBe(200);
    const { access_token: accessToken } = (await issued.json()) as { access_token: string };
    await proxy.cut();
    const userinfo = await fetch(`${service.url}/federation/auth/v1/userinfo`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(userinfo.status).toBe(502);
    expect(await userinfo.json()).toMatchObject({ error: 'bad_gateway' });
    // A client read within the last second is served from memory; one that is not needs the database.
    const cut = await token('etl2', otherSecret);
    expect(cut.status).toBe(502);
    expect(await cut.json()).toMatchObject({ error: 'bad_gateway' });
    const revoke = await fetch(`${service.url}/federation/auth/v1/revoke`, {
      method: 'POST',
      headers: form,
      body: new URLSearchParams({ token: 'x', client_id: 'etl', client_secret: secret }),
    });
    expect(revoke.status).toBe(502);
    const marketplace = await fetch(`${service.url}/api/v1/auth/external-service-token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: 'etl', client_secret: secret }),
    });
    expect(marketplace.status).toBe(502);
    expect(await marketplace.json()).toMatchObject({ success: false, error: 'bad_gateway' });
    await proxy.restore();
    await waitForToken();
  }, 30_000);

  it('redirects an authorization request it cannot serve with server_error and the state', async () => {
    const authorize = `${service.url}/federation/auth/v1/authorize?${new URLSearchParams({
      client_id: 'web',
      redirect_uri: 'https://app.example.com/cb',
      response_type: 'code',
      scope: 'openid',
      state: 'st-9',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    })}`;
    // The client is known (read within the last second); the session store is not reachable.
    expect((await fetch(authorize, { redirect: 'manual' })).status).toBe(303);
    await proxy.cut();
    try {
      const res = await fetch(authorize, { redirect: 'manual' });
      expect(res.status).toBe(302);
      const target = new URL(res.headers.get('location') as string);
      expect(target.origin + target.pathname).toBe('https://app.example.com/cb');
      expect(target.searchParams.get('error')).toBe('server_error');
      expect(target.searchParams.get('state')).toBe('st-9');
    } finally {
      await proxy.restore();
    }
    await waitForToken();
  }, 30_000);

  async function waitForToken(): Promise<void> {
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
      status = (await token('etl2', otherSecret)).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
  }
});
