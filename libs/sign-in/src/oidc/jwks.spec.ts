import 'reflect-metadata';
import { KeyDecryptionError, SigningKeysService } from '@fed/identity';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService } from '@fed/server';
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { bootAuthService } from '../testing/boot-auth-service';
import { ScopeProbeModule } from '../testing/scope-probe.module';

describe('auth-service JWKS (spec: GET /federation/auth/v1/jwks)', () => {
  let database: TestDatabase;
  let service: RunningService;

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await bootAuthService({ databaseUrl: database.url, features: [ScopeProbeModule] });
  });

  afterAll(async () => {
    await service?.shutdown('test');
    await database?.drop();
  });

  it('publishes the signing key created at first start, without authentication', async () => {
    const res = await fetch(`${service.url}/federation/auth/v1/jwks`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const body = (await res.json()) as { keys: Record<string, unknown>[] };
    expect(body.keys).toHaveLength(1);
    expect(body.keys[0]).toMatchObject({ kty: 'RSA', use: 'sig', alg: 'RS256' });
    expect(Object.keys(body).sort()).toEqual(['keys']);
    expect(JSON.stringify(body)).not.toMatch(/"(d|p|q|dp|dq|qi)":/);
  });

  it('signs tokens that every service guard accepts, verifying them through this JWKS', async () => {
    const { kid, privateKey } = await service.nest.get(SigningKeysService).activeSigningKey();
    const now = Math.floor(Date.now() / 1000);
    const claims = { typ: 'Bearer', aud: 'broker', azp: 'client-1', scope: 'openid chat:exec', jti: randomUUID() };
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid })
      .setIssuer(service.config.auth.issuer)
      .setSubject(randomUUID())
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(privateKey);
    const res = await fetch(`${service.url}/probe/chat`, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });

  it('refuses to start with an encryption key that cannot open the stored signing key', async () => {
    await expect(bootAuthService({ databaseUrl: database.url })).rejects.toBeInstanceOf(KeyDecryptionError);
  });
});
