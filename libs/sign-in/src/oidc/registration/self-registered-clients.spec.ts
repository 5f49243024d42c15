import { type Counters, RedisCounters } from '@fed/bus';
import { testServiceUrls } from '@fed/config';
import { createLogger } from '@fed/observability';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { HttpsTestServer, deleteRedisKeys } from '@fed/testing';
import { randomUUID } from 'node:crypto';
import { ClientRepository, ClientsService, identityEntities } from '@fed/identity/internal';
import { ClientCache } from '../client-cache';
import { MetadataDocumentFetcher } from './metadata-document-fetcher';
import { SelfRegisteredClients } from './self-registered-clients';

describe('clients resolved through their metadata documents (real PostgreSQL and Redis, a real https server)', () => {
  const { redisUrl } = testServiceUrls();
  let database: TestDatabase;
  let keyPrefix: string;
  const opened: Counters[] = [];
  let server: HttpsTestServer;
  let repository: ClientRepository;
  let fetches: number;
  let document: Record<string, unknown>;
  let now: Date;
  const clientId = () => `${server.origin}/mcp/client.json`;
  /** The address of the browser or client whose request needs the client (documentation range, RFC 5737). */
  const requester = '192.0.2.10';

  /** One instance: its own Redis connection, the keys of the test shared with the other instances. */
  const resolver = (perHostPerHour = 100, failureSeconds?: number, perAddressPerHour = 100) => {
    const counters = new RedisCounters({ url: redisUrl, keyPrefix });
    opened.push(counters);
    return new SelfRegisteredClients(
      repository,
      new MetadataDocumentFetcher({ allowPrivateAddresses: true, caFile: server.caFile }),
      counters,
      { perHostPerHour, perAddressPerHour, failureSeconds },
      createLogger({ service: 'test', level: 'silent' }),
      () => now,
    );
  };

  beforeAll(async () => {
    server = await HttpsTestServer.start();
  });
  beforeEach(async () => {
    database = await createTestDatabase({ entities: identityEntities });
    repository = new ClientRepository(database.dataSource);
    keyPrefix = `test:${randomUUID()}:`;
    now = new Date('2026-12-01T10:00:00Z');
    fetches = 0;
    document = { client_id: clientId(), client_name: 'Host', redirect_uris: ['https://host.example/cb'] };
    server.handler = (_req, res) => {
      fetches++;
      // Slow enough that concurrent first uses overlap.
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=600' });
        res.end(JSON.stringify(document));
      }, 50);
    };
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((counters) => counters.close()));
    await deleteRedisKeys(redisUrl, keyPrefix);
    await database?.drop();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('fetches once for the concurrent first uses of an instance, and stores a public client of no tenant', async () => {
    const cache = new ClientCache(resolver());
    const found = await Promise.all(Array.from({ length: 20 }, () => cache.find(clientId(), requester)));
    expect(fetches).toBe(1);
    expect(found[0]).toMatchObject({
      clientId: clientId(),
      name: 'Host',
      tenantId: null,
      secretHash: null,
      tokenEndpointAuthMethod: 'none',
      registration: 'metadata_document',
      redirectUris: ['https://host.example/cb'],
      scopes: ['mcp:all', 'a2a:all'],
      consentRequired: true,
      requirePkce: true,
      metadataExpiresAt: new Date(now.getTime() + 600_000),
    });
  });

  it('two instances fetching the same document at once both land on one row', async () => {
    const [first, second] = await Promise.all([
      resolver().find(clientId(), requester),
      resolver().find(clientId(), requester),
    ]);
    expect(first?.serviceAccountId).toBe(second?.serviceAccountId);
    const rows = (await database.dataSource.query(`SELECT count(*)::int AS n FROM "identity"."clients"`)) as {
      n: number;
    }[];
    expect(rows[0]?.n).toBe(1);
  });

  it('uses the stored row until it expires, then fetches again and takes the changes', async () => {
    const clients = resolver();
    await clients.find(clientId(), requester);
    now = new Date(now.getTime() + 599_000);
    expect((await clients.find(clientId(), requester))?.redirectUris).toEqual(['https://host.example/cb']);
    expect(fetches).toBe(1);
    document = { ...document, redirect_uris: ['https://host.example/new'] };
    now = new Date(now.getTime() + 2000);
    expect((await clients.find(clientId(), requester))?.redirectUris).toEqual(['https://host.example/new']);
    expect(fetches).toBe(2);
  });

  it('a document refused when fetched again makes its client unknown', async () => {
    const clients = resolver();
    await clients.find(clientId(), requester);
    document = { ...document, client_id: 'https://elsewhere.example/client.json' };
    now = new Date(now.getTime() + 601_000);
    expect(await clients.find(clientId(), requester)).toBeNull();
  });

  it('reads other client ids from the registry without fetching anything', async () => {
    await new ClientsService(repository, { defaultTenantEndpoint: 'http://localhost:8080' }).create({
      clientId: 'etl',
      name: 'ETL',
      grantTypes: ['client_credentials'],
      scopes: ['users:read'],
    });
    expect(await resolver().find('etl', requester)).toMatchObject({
      registration: 'operator',
      tokenEndpointAuthMethod: 'client_secret_basic',
    });
    expect(await resolver().find('https://nope', requester)).toBeNull();
    expect(fetches).toBe(0);
  });

  describe('the budget of fetches', () => {
    /** Serves, at any path, a valid document naming that path's URL. */
    const serveEveryPath = () => {
      server.handler = (req, res) => {
        fetches++;
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=600' });
          res.end(JSON.stringify({ client_id: `${server.origin}${req.url}`, redirect_uris: ['https://h.example/cb'] }));
        }, 50);
      };
    };

    it('fetches exactly the limit per host and hour for concurrent first uses across two instances', async () => {
      serveEveryPath();
      const [first, second] = [resolver(3), resolver(3)];
      const found = await Promise.all(
        Array.from({ length: 12 }, (_, i) => (i % 2 ? first : second).find(`${server.origin}/c/${i}.json`, requester)),
      );
      expect(fetches).toBe(3);
      expect(found.filter((client) => client !== null)).toHaveLength(3);
      // Past the limit a new client of that host stays unknown, and nothing more is fetched.
      expect(await first.find(`${server.origin}/c/late.json`, requester)).toBeNull();
      expect(fetches).toBe(3);
    });

    it('past the limit a stored client keeps working on its expired row; a new one of the host is unknown', async () => {
      serveEveryPath();
      const clients = resolver(1);
      const real = `${server.origin}/real/client.json`;
      expect(await clients.find(real, requester)).not.toBeNull();
      // An attacker spends the host's budget on random paths; none of them is fetched.
      expect(await clients.find(`${server.origin}/random/1.json`, requester)).toBeNull();
      now = new Date(now.getTime() + 601_000);
      const stale = await clients.find(real, requester);
      expect(stale).toMatchObject({ clientId: real, redirectUris: ['https://h.example/cb'] });
      expect(stale?.metadataExpiresAt?.getTime()).toBeLessThan(now.getTime());
      expect(fetches).toBe(1);
      // Through the cache the token endpoint and authorize read too.
      expect(await new ClientCache(clients).find(real, requester)).not.toBeNull();
      expect(fetches).toBe(1);
    });

    it('fetches exactly the limit for one requester across instances; another requester still fetches', async () => {
      serveEveryPath();
      const [first, second] = [resolver(100, undefined, 3), resolver(100, undefined, 3)];
      const found = await Promise.all(
        Array.from({ length: 12 }, (_, i) => (i % 2 ? first : second).find(`${server.origin}/by/${i}.json`, requester)),
      );
      expect(fetches).toBe(3);
      expect(found.filter((client) => client !== null)).toHaveLength(3);
      expect(await first.find(`${server.origin}/by/other.json`, '192.0.2.11')).not.toBeNull();
      expect(fetches).toBe(4);
    });

    it("a lookup made for no request (the provider's own, at login and consent) reads the stored row and never fetches", async () => {
      serveEveryPath();
      const clients = resolver();
      expect(await clients.find(`${server.origin}/unseen.json`)).toBeNull();
      expect(fetches).toBe(0);
      const known = `${server.origin}/known.json`;
      expect(await clients.find(known, requester)).not.toBeNull();
      now = new Date(now.getTime() + 601_000);
      expect(await clients.find(known)).toMatchObject({ clientId: known });
      expect(fetches).toBe(1);
    });

    it('a refused document is not fetched again until its refusal expires (every instance)', async () => {
      document = { ...document, client_id: 'https://elsewhere.example/client.json' };
      const [first, second] = [resolver(100, 2), resolver(100, 2)];
      expect(await first.find(clientId(), requester)).toBeNull();
      for (let i = 0; i < 5; i++) expect(await (i % 2 ? first : second).find(clientId(), requester)).toBeNull();
      expect(fetches).toBe(1);
      document = { ...document, client_id: clientId() };
      await new Promise((resolve) => setTimeout(resolve, 2100));
      expect(await second.find(clientId(), requester)).toMatchObject({ clientId: clientId(), name: 'Host' });
      expect(fetches).toBe(2);
    });
  });
});
