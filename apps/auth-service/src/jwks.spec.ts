import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { Scopes } from '@fed/auth';
import { loadConfig } from '@fed/config';
import { KeyDecryptionError, SigningKeysService } from '@fed/identity';
import { createLogger } from '@fed/observability';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService, createServiceApp } from '@fed/server';
import { freePort } from '@fed/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { AuthServiceModule } from './auth-service.module';

@Controller('probe')
class ProbeController {
  @Scopes('chat:exec')
  @Get()
  probe() {
    return { ok: true };
  }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

describe('auth-service JWKS (spec: GET /federation/auth/v1/jwks)', () => {
  let database: TestDatabase;
  let service: RunningService;

  beforeAll(async () => {
    database = await createTestDatabase();
    const port = await freePort();
    const base = loadConfig('auth-service', {
      DATABASE_URL: database.url,
      REDIS_URL: 'redis://unused:6379',
      KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      PORT: String(port),
      HOST: '127.0.0.1',
    });
    service = await createServiceApp({
      app: 'auth-service',
      features: [AuthServiceModule, ProbeModule],
      // In-process bus: this test is about keys, not Redis.
      config: { ...base, redis: { ...base.redis, url: undefined } },
      logger: createLogger({ service: 'auth-service', level: 'silent' }),
    });
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
    const token = await new SignJWT({ typ: 'Bearer', azp: 'client-1', scope: 'openid chat:exec', jti: randomUUID() })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid })
      .setIssuer(service.config.auth.issuer)
      .setSubject(randomUUID())
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(privateKey);
    const res = await fetch(`${service.url}/probe`, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });

  it('refuses to start with an encryption key that cannot open the stored signing key', async () => {
    const base = loadConfig('auth-service', {
      DATABASE_URL: database.url,
      REDIS_URL: 'redis://unused:6379',
      KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      HOST: '127.0.0.1',
    });
    await expect(
      createServiceApp({
        app: 'auth-service',
        features: [AuthServiceModule],
        config: { ...base, http: { ...base.http, port: 0 }, redis: { ...base.redis, url: undefined } },
        logger: createLogger({ service: 'auth-service', level: 'silent' }),
      }),
    ).rejects.toBeInstanceOf(KeyDecryptionError);
  });
});
