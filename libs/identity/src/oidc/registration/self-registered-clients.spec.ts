import { createLogger } from '@fed/observability';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { HttpsTestServer } from '@fed/testing';
import { ClientRepository } from '../../clients/client.repository';
import { ClientsService } from '../../clients/clients.service';
import { identityEntities } from '../../index';
import { ClientCache } from '../client-cache';
import { MetadataDocumentFetcher } from './metadata-document-fetcher';
import { SelfRegisteredClients } from './self-registered-clients';

describe('clients resolved through their metadata documents (real PostgreSQL, a real https server)', () => {
  let database: TestDatabase;
  let server: HttpsTestServer;
  let repository: ClientRepository;
  let fetches: number;
  let document: Record<string, unknown>;
  let now: Date;
  const clientId = () => `${server.origin}/mcp/client.json`;

  const resolver = () =>
    new SelfRegisteredClients(
      repository,
      new MetadataDocumentFetcher({ allowPrivateAddresses: true, caFile: server.caFile }),
      createLogger({ service: 'test', level: 'silent' }),
      () => now,
    );

  beforeAll(async () => {
    server = await HttpsTestServer.start();
  });
  beforeEach(async () => {
    database = await createTestDatabase({ entities: identityEntities });
    repository = new ClientRepository(database.dataSource);
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
    await database?.drop();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('fetches once for the concurrent first uses of an instance, and stores a public client of no tenant', async () => {
    const cache = new ClientCache(resolver());
    const found = await Promise.all(Array.from({ length: 20 }, () => cache.find(clientId())));
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
    const [first, second] = await Promise.all([resolver().find(clientId()), resolver().find(clientId())]);
    expect(first?.serviceAccountId).toBe(second?.serviceAccountId);
    const rows = (await database.dataSource.query(`SELECT count(*)::int AS n FROM "identity"."clients"`)) as {
      n: number;
    }[];
    expect(rows[0]?.n).toBe(1);
  });

  it('uses the stored row until it expires, then fetches again and takes the changes', async () => {
    const clients = resolver();
    await clients.find(clientId());
    now = new Date(now.getTime() + 599_000);
    expect((await clients.find(clientId()))?.redirectUris).toEqual(['https://host.example/cb']);
    expect(fetches).toBe(1);
    document = { ...document, redirect_uris: ['https://host.example/new'] };
    now = new Date(now.getTime() + 2000);
    expect((await clients.find(clientId()))?.redirectUris).toEqual(['https://host.example/new']);
    expect(fetches).toBe(2);
  });

  it('a document refused when fetched again makes its client unknown', async () => {
    const clients = resolver();
    await clients.find(clientId());
    document = { ...document, client_id: 'https://elsewhere.example/client.json' };
    now = new Date(now.getTime() + 601_000);
    expect(await clients.find(clientId())).toBeNull();
  });

  it('reads other client ids from the registry without fetching anything', async () => {
    await new ClientsService(repository, { defaultTenantEndpoint: 'http://localhost:8080' }).create({
      clientId: 'etl',
      name: 'ETL',
      grantTypes: ['client_credentials'],
      scopes: ['users:read'],
    });
    expect(await resolver().find('etl')).toMatchObject({
      registration: 'operator',
      tokenEndpointAuthMethod: 'client_secret_basic',
    });
    expect(await resolver().find('https://nope')).toBeNull();
    expect(fetches).toBe(0);
  });
});
