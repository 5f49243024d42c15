import 'reflect-metadata';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService } from '@fed/server';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import * as oidc from 'openid-client';
import { bootAuthService, insertTenant, registryOf } from '../../testing/boot-auth-service';
import { ScopeProbeModule } from '../../testing/scope-probe.module';

describe('token endpoint: client credentials (spec document 1)', () => {
  let database: TestDatabase;
  let service: RunningService;
  let tokenUrl: string;
  const secrets: Record<string, string> = {};
  const serviceAccounts: Record<string, string> = {};

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await bootAuthService({ databaseUrl: database.url, features: [ScopeProbeModule] });
    tokenUrl = `${service.url}/federation/auth/v1/token`;
    const { clients } = registryOf(service);
    await insertTenant(service, {
      id: '11111111-1111-4111-8111-111111111111',
      name: 'closed',
      type: 'enterprise',
      endpoint: 'https://closed.example.com',
      enabled: false,
    });
    for (const [clientId, grantTypes, scopes, tenantName] of [
      ['etl', ['client_credentials'], ['users:read', 'logs:read'], undefined],
      ['web', ['authorization_code'], ['openid', 'chat:exec'], undefined],
      ['closed-etl', ['client_credentials'], ['users:read'], 'closed'],
    ] as const) {
      const redirectUris = clientId === 'web' ? ['https://web.example.com/cb'] : [];
      const issued = await clients.create({ clientId, name: clientId, grantTypes, scopes, redirectUris, tenantName });
      secrets[clientId] = issued.clientSecret;
      serviceAccounts[clientId] = issued.client.serviceAccountId;
    }
    // The platform operator's own integration: registered in no tenant.
    const operator = await clients.create({
      clientId: 'operator-etl',
      name: 'Platform operator',
      grantTypes: ['client_credentials'],
      scopes: ['logs:read'],
      operator: true,
    });
    secrets['operator-etl'] = operator.clientSecret;
    serviceAccounts['operator-etl'] = operator.client.serviceAccountId;
  });

  afterAll(async () => {
    await service?.shutdown('test');
    await database?.drop();
  });

  const configuration = (clientId: string, auth: 'basic' | 'post' = 'basic') => {
    const secret = secrets[clientId] as string;
    const config = new oidc.Configuration(
      {
        issuer: service.config.auth.issuer,
        token_endpoint: tokenUrl,
        revocation_endpoint: `${service.url}/federation/auth/v1/revoke`,
      },
      clientId,
      secret,
      auth === 'basic' ? oidc.ClientSecretBasic(secret) : oidc.ClientSecretPost(secret),
    );
    oidc.allowInsecureRequests(config);
    return config;
  };

  const post = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(tokenUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form).toString(),
    });

  it('issues exactly access_token, id_token, expires_in, token_type Bearer and scope, with no refresh token', async () => {
    const res = await post({
      grant_type: 'client_credentials',
      client_id: 'etl',
      client_secret: secrets.etl as string,
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'scope', 'token_type']);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 300, scope: 'users:read logs:read' });
  });

  it('authenticates with client_secret_basic and client_secret_post alike (openid-client)', async () => {
    for (const auth of ['basic', 'post'] as const) {
      const tokens = await oidc.clientCredentialsGrant(configuration('etl', auth), { scope: 'users:read' });
      expect(tokens.access_token).toBeDefined();
      expect(tokens.scope).toBe('users:read');
      expect(tokens.refresh_token).toBeUndefined();
    }
  });

  it('puts the client-credentials claims of the spec in the access token', async () => {
    const tokens = await oidc.clientCredentialsGrant(configuration('etl'));
    const header = decodeProtectedHeader(tokens.access_token);
    expect(header).toMatchObject({ alg: 'RS256', typ: 'JWT' });
    const jwks = (await (await fetch(`${service.url}/federation/auth/v1/jwks`)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((k) => k.kid)).toContain(header.kid);
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({
      iss: service.config.auth.issuer,
      sub: serviceAccounts.etl,
      typ: 'Bearer',
      azp: 'etl',
      scope: 'users:read logs:read',
      preferred_username: 'service-account-etl@federation.invalid',
      realm_access: { roles: ['M2M'] },
      tenant: { type: 'saas', endpoint: service.config.http.publicUrl },
    });
    expect(typeof claims.jti).toBe('string');
    expect((claims.exp as number) - (claims.iat as number)).toBe(300);
    for (const codeFlowOnly of ['aud', 'sid', 'auth_time', 'allowed-origins', 'idp', 'nonce']) {
      expect(claims).not.toHaveProperty(codeFlowOnly);
    }
  });

  it('issues an ID token for the service account, addressed to the client', async () => {
    const tokens = await oidc.clientCredentialsGrant(configuration('etl'));
    const idToken = decodeJwt(tokens.id_token as string);
    expect(idToken).toMatchObject({
      iss: service.config.auth.issuer,
      sub: serviceAccounts.etl,
      aud: 'etl',
      azp: 'etl',
      typ: 'ID',
    });
    expect(idToken).not.toHaveProperty('idp');
  });

  it('issues tokens that other services accept, and that still need the right scope', async () => {
    const tokens = await oidc.clientCredentialsGrant(configuration('etl'), { scope: 'users:read' });
    const auth = { Authorization: `Bearer ${tokens.access_token}` };
    expect((await fetch(`${service.url}/probe/users`, { headers: auth })).status).toBe(200);
    expect((await fetch(`${service.url}/probe/logs`, { headers: auth })).status).toBe(403);
  });

  describe("the platform operator's own integration (a client of no tenant)", () => {
    it('gets an access token and an ID token with no tenant claim (it is outside every tenant)', async () => {
      const tokens = await oidc.clientCredentialsGrant(configuration('operator-etl'));
      expect(tokens.scope).toBe('logs:read');
      const access = decodeJwt(tokens.access_token);
      expect(access).toMatchObject({
        sub: serviceAccounts['operator-etl'],
        azp: 'operator-etl',
        typ: 'Bearer',
        preferred_username: 'service-account-operator-etl@federation.invalid',
        realm_access: { roles: ['M2M'] },
      });
      expect(access).not.toHaveProperty('tenant');
      const idToken = decodeJwt(tokens.id_token as string);
      expect(idToken).toMatchObject({ sub: serviceAccounts['operator-etl'], aud: 'operator-etl', typ: 'ID' });
      expect(idToken).not.toHaveProperty('tenant');
    });

    it('has tokens that other services accept for their scope, userinfo answers, and revocation ends', async () => {
      const tokens = await oidc.clientCredentialsGrant(configuration('operator-etl'));
      const auth = { Authorization: `Bearer ${tokens.access_token}` };
      expect((await fetch(`${service.url}/probe/logs`, { headers: auth })).status).toBe(200);
      expect((await fetch(`${service.url}/probe/users`, { headers: auth })).status).toBe(403);
      const userinfo = await fetch(`${service.url}/federation/auth/v1/userinfo`, { headers: auth });
      expect([userinfo.status, await userinfo.json()]).toEqual([200, { sub: serviceAccounts['operator-etl'] }]);
      await oidc.tokenRevocation(configuration('operator-etl'), tokens.access_token);
      expect((await fetch(`${service.url}/probe/logs`, { headers: auth })).status).toBe(401);
    });
  });

  describe('errors (RFC 6749 bodies with the spec statuses)', () => {
    const errorOf = async (res: Response) => ({
      status: res.status,
      error: ((await res.json()) as { error: string }).error,
    });

    it('401 invalid_client for a wrong secret or an unknown client', async () => {
      expect(
        await errorOf(await post({ grant_type: 'client_credentials', client_id: 'etl', client_secret: 'wrong' })),
      ).toEqual({
        status: 401,
        error: 'invalid_client',
      });
      expect(
        await errorOf(await post({ grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'x' })),
      ).toEqual({
        status: 401,
        error: 'invalid_client',
      });
    });

    it('400 invalid_scope for a scope the client was not given', async () => {
      const res = await post({
        grant_type: 'client_credentials',
        client_id: 'etl',
        client_secret: secrets.etl as string,
        scope: 'users:manage',
      });
      expect(await errorOf(res)).toEqual({ status: 400, error: 'invalid_scope' });
    });

    it('400 unauthorized_client for a client not allowed this grant, or whose tenant is disabled', async () => {
      const web = await post({
        grant_type: 'client_credentials',
        client_id: 'web',
        client_secret: secrets.web as string,
      });
      expect(await errorOf(web)).toEqual({ status: 400, error: 'unauthorized_client' });
      const closed = await post({
        grant_type: 'client_credentials',
        client_id: 'closed-etl',
        client_secret: secrets['closed-etl'] as string,
      });
      expect(await errorOf(closed)).toEqual({ status: 400, error: 'unauthorized_client' });
    });

    it('400 invalid_request for a missing grant_type or a body that is not a form', async () => {
      expect(await errorOf(await post({ client_id: 'etl', client_secret: secrets.etl as string }))).toEqual({
        status: 400,
        error: 'invalid_request',
      });
      const json = await fetch(tokenUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'etl', client_secret: secrets.etl }),
      });
      expect((await errorOf(json)).status).toBe(400);
    });
  });
});
