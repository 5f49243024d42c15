import 'reflect-metadata';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService } from '@fed/server';
import { decodeJwt } from 'jose';
import { bootAuthService, registryOf } from '../testing/boot-auth-service';
import { ScopeProbeModule } from '../testing/scope-probe.module';

describe('Marketplace token endpoint (EDITION=marketplace)', () => {
  let database: TestDatabase;
  let service: RunningService;
  let url: string;
  let secret: string;
  let webSecret: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await bootAuthService({
      databaseUrl: database.url,
      env: { EDITION: 'marketplace' },
      features: [ScopeProbeModule],
    });
    url = `${service.url}/api/v1/auth/external-service-token`;
    const { clients } = registryOf(service);
    secret = (
      await clients.create({ clientId: 'svc', name: 'svc', grantTypes: ['client_credentials'], scopes: ['users:read'] })
    ).clientSecret;
    webSecret = (
      await clients.create({
        clientId: 'web',
        name: 'web',
        grantTypes: ['authorization_code'],
        scopes: ['openid'],
        redirectUris: ['https://app.example.com/cb'],
      })
    ).clientSecret;
  });

  afterAll(async () => {
    await service?.shutdown('test');
    await database?.drop();
  });

  const post = (body: unknown, contentType = 'application/json') =>
    fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body: JSON.stringify(body) });

  it('answers success, access_token, token_type Bearer, expires_in and scope, and no refresh token', async () => {
    const res = await post({ client_id: 'svc', client_secret: secret });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'scope', 'success', 'token_type']);
    expect(body).toMatchObject({ success: true, token_type: 'Bearer', expires_in: 300, scope: 'users:read' });
    const claims = decodeJwt(body.access_token as string);
    expect(claims).toMatchObject({ azp: 'svc', realm_access: { roles: ['M2M'] }, typ: 'Bearer' });
    // Marketplace: no scope restriction, every API is available.
    const probe = await fetch(`${service.url}/probe/logs`, {
      headers: { authorization: `Bearer ${body.access_token}` },
    });
    expect(probe.status).toBe(200);
  });

  it("gives the platform operator's integration (a client of no tenant) a token without a tenant claim", async () => {
    const { clients } = registryOf(service);
    const operator = await clients.create({
      clientId: 'ops',
      name: 'ops',
      grantTypes: ['client_credentials'],
      scopes: ['logs:read'],
      operator: true,
    });
    const res = await post({ client_id: 'ops', client_secret: operator.clientSecret });
    expect(res.status).toBe(200);
    const claims = decodeJwt(((await res.json()) as { access_token: string }).access_token);
    expect(claims).toMatchObject({
      azp: 'ops',
      sub: operator.client.serviceAccountId,
      realm_access: { roles: ['M2M'] },
    });
    expect(claims).not.toHaveProperty('tenant');
  });

  it('refuses wrong credentials (401), a malformed body (400) and a client that is not a service account (400)', async () => {
    const wrong = await post({ client_id: 'svc', client_secret: 'nope' });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ success: false, error: 'invalid_client' });
    for (const body of [{}, { client_id: 'svc' }, { client_id: 1, client_secret: 2 }]) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ success: false, error: 'invalid_request' });
    }
    const form = await post({ client_id: 'svc', client_secret: secret }, 'text/plain');
    expect(form.status).toBe(400);
    const web = await post({ client_id: 'web', client_secret: webSecret });
    expect(web.status).toBe(400);
    expect(await web.json()).toMatchObject({ success: false, error: 'unauthorized_client' });
  });
});
