import 'reflect-metadata';
import { testServiceUrls } from '@fed/config';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService } from '@fed/server';
import { HttpsTestServer, TestBrowser, deleteRedisKeys } from '@fed/testing';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { bootAuthService } from '../../testing/boot-auth-service';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';
const CHALLENGE = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');

/**
 * Client registration without an operator, as an install runs it by default: dynamic registration off (404,
 * not in discovery), metadata documents on public addresses only; and with dynamic registration on, the
 * per-address limit holds across instances sharing Redis.
 */
describe('client registration: the defaults, and the limit across instances', () => {
  let database: TestDatabase;
  // One key for every boot on this database: the signing key made at the first must open at the next.
  const encryptionKey = randomBytes(32).toString('base64');

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  describe('by default', () => {
    let service: RunningService;
    let documents: HttpsTestServer;
    let fetched: string[];

    beforeAll(async () => {
      service = await bootAuthService({ databaseUrl: database.url, encryptionKey });
      documents = await HttpsTestServer.start();
    });
    beforeEach(() => {
      fetched = [];
      documents.handler = (req, res) => {
        fetched.push(req.url ?? '');
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ client_id: `${documents.origin}${req.url}`, redirect_uris: [REDIRECT_URI] }));
      };
    });
    afterAll(async () => {
      await service?.shutdown('test');
      await documents?.close();
    });

    it('has no dynamic registration: the route is 404 and discovery names no registration_endpoint', async () => {
      const res = await fetch(`${service.url}/federation/auth/v1/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [REDIRECT_URI] }),
      });
      expect(res.status).toBe(404);
      const metadata = (await (
        await fetch(`${service.url}/realms/federation/.well-known/openid-configuration`)
      ).json()) as Record<string, unknown>;
      expect(metadata).not.toHaveProperty('registration_endpoint');
      expect(metadata.client_id_metadata_document_supported).toBe(true);
    });

    it('fetches no metadata document from a loopback address (SSRF): the client is unknown, nothing is asked', async () => {
      const port = new URL(documents.origin).port;
      for (const clientId of [`https://127.0.0.1:${port}/client.json`, `https://localhost:${port}/client.json`]) {
        const url = new URL(`${service.url}/federation/auth/v1/authorize`);
        url.search = new URLSearchParams({
          response_type: 'code',
          client_id: clientId,
          redirect_uri: REDIRECT_URI,
          scope: 'mcp:all',
          code_challenge: CHALLENGE,
          code_challenge_method: 'S256',
        }).toString();
        const page = await new TestBrowser(service.url).visit(url.href);
        expect({ status: page.status, location: page.location }).toEqual({ status: 400, location: undefined });
      }
      expect(fetched).toEqual([]);
    });
  });

  describe('with OIDC_DYNAMIC_REGISTRATION=true, two instances sharing Redis', () => {
    const redis = { url: testServiceUrls().redisUrl, keyPrefix: `test:${randomUUID().slice(0, 8)}:` };
    const limit = 4;
    let instances: RunningService[];

    beforeAll(async () => {
      const env = { OIDC_DYNAMIC_REGISTRATION: 'true', OIDC_DYNAMIC_REGISTRATION_PER_HOUR: String(limit) };
      instances = [
        await bootAuthService({ databaseUrl: database.url, encryptionKey, redis, env }),
        await bootAuthService({ databaseUrl: database.url, encryptionKey, redis, env }),
      ];
    });
    afterAll(async () => {
      for (const instance of instances ?? []) await instance.shutdown('test');
      await deleteRedisKeys(redis.url, redis.keyPrefix);
    });

    it('registers exactly the limit of concurrent requests from one address, whichever instance answers', async () => {
      const answers = await Promise.all(
        Array.from({ length: limit * 4 }, (_, index) =>
          fetch(`${(instances[index % 2] as RunningService).url}/federation/auth/v1/register`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ redirect_uris: [REDIRECT_URI], client_name: `client ${index}` }),
          }),
        ),
      );
      const statuses = answers.map((res) => res.status);
      expect(statuses.filter((status) => status === 201)).toHaveLength(limit);
      expect(statuses.filter((status) => status === 429)).toHaveLength(limit * 3);
      const rows = (await database.dataSource.query(
        `SELECT count(*)::int AS n FROM "identity"."clients" WHERE "registration" = 'dynamic'`,
      )) as { n: number }[];
      expect(rows[0]?.n).toBe(limit);
    });
  });
});
