import 'reflect-metadata';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService } from '@fed/server';
import { randomBytes } from 'node:crypto';
import { bootAuthService } from '../testing/boot-auth-service';

// The identity endpoint whose body goes through the application's ValidationPipe: the Marketplace
// token endpoint. Its refusals keep the endpoint's own format, not the REST error envelope.
describe('auth-service: malformed requests to the Marketplace token endpoint', () => {
  let database: TestDatabase;
  let marketplace: RunningService;
  let standard: RunningService;

  beforeAll(async () => {
    database = await createTestDatabase();
    // One key: the second service opens the signing key the first one made.
    const encryptionKey = randomBytes(32).toString('base64');
    marketplace = await bootAuthService({ databaseUrl: database.url, encryptionKey, env: { EDITION: 'marketplace' } });
    standard = await bootAuthService({ databaseUrl: database.url, encryptionKey });
  });

  afterAll(async () => {
    await marketplace?.shutdown('test');
    await standard?.shutdown('test');
    await database?.drop();
  });

  const post = (service: RunningService, body: string, contentType = 'application/json') =>
    fetch(`${service.url}/api/v1/auth/external-service-token`, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    });

  it.each([
    ['a body that is not a JSON object', '["svc", "secret"]', 'application/json'],
    ['a client_id that is not a string', '{"client_id": 1, "client_secret": "secret"}', 'application/json'],
    ['an empty client_secret', '{"client_id": "svc", "client_secret": ""}', 'application/json'],
    ['a body that is not JSON', 'client_id=svc&client_secret=secret', 'application/x-www-form-urlencoded'],
  ])('400 invalid_request in the endpoint format for %s', async (_name, body, contentType) => {
    const res = await post(marketplace, body, contentType);
    expect(res.status).toBe(400);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const answer = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(answer).sort()).toEqual(['error', 'error_description', 'success']);
    expect(answer).toEqual({
      success: false,
      error: 'invalid_request',
      error_description: 'client_id and client_secret (strings) are required in an application/json body',
    });
  });

  it('answers 404 outside the Marketplace edition before it looks at the body', async () => {
    const res = await post(standard, '[]');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });
});
