import 'reflect-metadata';
import { testServiceUrls } from '@fed/config';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService } from '@fed/server';
import { MetricsScrape, deleteRedisKeys } from '@fed/testing';
import { randomUUID } from 'node:crypto';
import * as oidc from 'openid-client';
import { ScopeProbeModule, bootAuthService, bootOtherService, registryOf } from '@fed/sign-in/testing';

/**
 * Distributed: auth-service and another service (its own Nest app, bus connections and revocation
 * list) share only Redis and the JWKS URL. A token revoked at auth-service is refused by the other
 * service within a second.
 */
describe('revocation reaches another service within a second (Redis signals)', () => {
  const redis = { url: testServiceUrls().redisUrl, keyPrefix: `test:${randomUUID().slice(0, 8)}:` };
  let database: TestDatabase;
  let auth: RunningService;
  let other: RunningService;
  let secret: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    auth = await bootAuthService({ databaseUrl: database.url, redis });
    const { clients } = registryOf(auth);
    secret = (
      await clients.create({ clientId: 'etl', name: 'etl', grantTypes: ['client_credentials'], scopes: ['logs:read'] })
    ).clientSecret;
    other = await startService('chat-service');
  });

  const startService = (app: 'chat-service' | 'admin-service') =>
    bootOtherService(app, { auth, databaseUrl: database.url, redis, features: [ScopeProbeModule] });

  afterAll(async () => {
    await other?.shutdown('test');
    await auth?.shutdown('test');
    await database?.drop();
    await deleteRedisKeys(redis.url, redis.keyPrefix);
  });

  const etlClient = () => {
    const config = new oidc.Configuration(
      {
        issuer: auth.config.auth.issuer,
        token_endpoint: `${auth.url}/federation/auth/v1/token`,
        revocation_endpoint: `${auth.url}/federation/auth/v1/revoke`,
      },
      'etl',
      secret,
      oidc.ClientSecretBasic(secret),
    );
    oidc.allowInsecureRequests(config);
    return config;
  };

  it('refuses the revoked token at the other service, and keeps accepting the others', async () => {
    const config = etlClient();
    const [revoked, kept] = await Promise.all([
      oidc.clientCredentialsGrant(config),
      oidc.clientCredentialsGrant(config),
    ]);
    const call = (token: string) =>
      fetch(`${other.url}/probe/logs`, { headers: { authorization: `Bearer ${token}` } }).then((res) => res.status);
    expect(await call(revoked.access_token)).toBe(200);

    await oidc.tokenRevocation(config, revoked.access_token);
    const revokedAt = Date.now();
    let status = await call(revoked.access_token);
    while (status === 200 && Date.now() - revokedAt < 1000) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      status = await call(revoked.access_token);
    }
    expect(status).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThan(1000);
    expect(await call(kept.access_token)).toBe(200);

    // A service started after the revocation knows it from the start (retained signal).
    const late = await startService('admin-service');
    try {
      const status = await fetch(`${late.url}/probe/logs`, {
        headers: { authorization: `Bearer ${revoked.access_token}` },
      });
      expect(status.status).toBe(401);
      const ok = await fetch(`${late.url}/probe/logs`, { headers: { authorization: `Bearer ${kept.access_token}` } });
      expect(ok.status).toBe(200);
    } finally {
      await late.shutdown('test');
    }
  });

  it("shows the other service's revocation list growing by the revoked token on /metrics", async () => {
    const config = etlClient();
    const { access_token: accessToken } = await oidc.clientCredentialsGrant(config);
    const size = async () => (await MetricsScrape.of(other.url)).find('auth_revocation_list_size');
    const [before] = await size();
    expect(before?.labels).toEqual({ service: 'chat-service' });
    await oidc.tokenRevocation(config, accessToken);
    let [now] = await size();
    while (now?.value === before?.value) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      [now] = await size();
    }
    expect(now?.value).toBe((before?.value ?? Number.NaN) + 1);
  });
});
