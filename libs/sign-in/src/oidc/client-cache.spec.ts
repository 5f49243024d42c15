import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { ClientEntity, ClientRepository, ClientsService, identityEntities } from '@fed/identity/internal';
import { ClientCache } from './client-cache';

describe('client cache of the token endpoint (real PostgreSQL)', () => {
  let database: TestDatabase;
  let repository: ClientRepository;
  let now: number;

  beforeEach(async () => {
    database = await createTestDatabase({ entities: identityEntities });
    repository = new ClientRepository(database.dataSource);
    await new ClientsService(repository, { defaultTenantEndpoint: 'http://localhost:8080' }).create({
      clientId: 'etl',
      name: 'ETL',
      grantTypes: ['client_credentials'],
      scopes: ['users:read'],
    });
    now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await database?.drop();
  });

  const disable = () => database.dataSource.getRepository(ClientEntity).update({ clientId: 'etl' }, { enabled: false });

  it('reads a client once for the lookups of the same moment, with its tenant', async () => {
    const reads = jest.spyOn(repository, 'find');
    const cache = new ClientCache(repository, 1000);
    const found = await Promise.all(Array.from({ length: 100 }, () => cache.find('etl')));
    expect(reads).toHaveBeenCalledTimes(1);
    expect(found.every((client) => client === found[0])).toBe(true);
    expect(found[0]).toMatchObject({ clientId: 'etl', enabled: true, tenant: { name: 'default' } });
    expect(await cache.find('nobody')).toBeNull();
  });

  it('replaces an entry whose time is up with one read, serving the entry meanwhile; a change shows after that read', async () => {
    const reads = jest.spyOn(repository, 'find');
    const cache = new ClientCache(repository, 1000);
    const before = await cache.find('etl');
    await disable();
    now += 1000;
    // Time is up: one read starts, and the lookups of this moment are answered from the entry at once.
    const meanwhile = await Promise.all(Array.from({ length: 50 }, () => cache.find('etl')));
    expect(meanwhile.every((client) => client === before)).toBe(true);
    expect(reads).toHaveBeenCalledTimes(2);
    await reads.mock.results[1]?.value;
    await new Promise((resolve) => setImmediate(resolve));
    expect((await cache.find('etl'))?.enabled).toBe(false);
    expect(reads).toHaveBeenCalledTimes(2);
  });

  it('makes a lookup wait for the read once the entry is twice its time old', async () => {
    const cache = new ClientCache(repository, 1000);
    await cache.find('etl');
    await disable();
    now += 1000;
    const stale = cache.find('etl');
    now += 1000;
    // The read begun a second ago has not been taken in yet: this lookup waits for it rather than serve the entry.
    expect((await cache.find('etl'))?.enabled).toBe(false);
    expect((await stale)?.enabled).toBe(true);
  });

  it('makes the first lookup after a quiet spell wait for the read: an entry is never served twice its time old', async () => {
    const cache = new ClientCache(repository, 1000);
    await cache.find('etl');
    await disable();
    now += 60 * 60 * 1000;
    expect((await cache.find('etl'))?.enabled).toBe(false);
  });

  it('does not keep a failed read: the next lookup reads again', async () => {
    const cache = new ClientCache(repository, 1000);
    const reads = jest.spyOn(repository, 'find').mockRejectedValueOnce(new Error('connection terminated'));
    await expect(cache.find('etl')).rejects.toThrow('connection terminated');
    expect((await cache.find('etl'))?.clientId).toBe('etl');
    // A failed refresh drops the entry: the lookup after it waits for a read of its own.
    now += 1000;
    reads.mockRejectedValueOnce(new Error('connection terminated'));
    expect((await cache.find('etl'))?.clientId).toBe('etl');
    await new Promise((resolve) => setImmediate(resolve));
    await disable();
    expect((await cache.find('etl'))?.enabled).toBe(false);
    expect(reads).toHaveBeenCalledTimes(4);
  });
});
