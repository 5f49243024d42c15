import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { identityEntities } from '..';
import { ClientEntity } from './client.entity';
import { ClientRepository } from './client.repository';
import { ClientsError } from './clients.errors';
import { ClientsService } from './clients.service';
import { randomUUID } from 'node:crypto';

describe('client registry (real PostgreSQL)', () => {
  let database: TestDatabase;
  let clients: ClientsService;

  beforeEach(async () => {
    database = await createTestDatabase({ entities: identityEntities });
    clients = new ClientsService(new ClientRepository(database.dataSource), {
      defaultTenantEndpoint: 'http://localhost:8080',
    });
  });
  afterEach(() => database?.drop());

  const registration = { clientId: 'etl', name: 'ETL', grantTypes: ['client_credentials'], scopes: ['users:read'] };

  it('creates a client and shows its secret once, storing only a hash', async () => {
    const { client, clientSecret } = await clients.create(registration);
    expect(clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(client).not.toHaveProperty('secretHash');
    expect(client).toMatchObject({
      clientId: 'etl',
      publicationStatus: 'Published',
      consentRequired: true,
      enabled: true,
    });
    expect(client.serviceAccountId).toMatch(/^[0-9a-f-]{36}$/);
    const [row] = await database.dataSource.getRepository(ClientEntity).find();
    expect(row?.secretHash?.includes(Buffer.from(clientSecret))).toBe(false);
    expect(JSON.stringify(await clients.list())).not.toContain(clientSecret);
  });

  it('authenticates the right secret only', async () => {
    const { clientSecret } = await clients.create(registration);
    expect((await clients.authenticate('etl', clientSecret))?.clientId).toBe('etl');
    expect(await clients.authenticate('etl', `${clientSecret}x`)).toBeNull();
    expect(await clients.authenticate('etl', '')).toBeNull();
    expect(await clients.authenticate('unknown', clientSecret)).toBeNull();
    expect(await clients.authenticate('x'.repeat(10_000), clientSecret)).toBeNull();
  });

  it('refuses a disabled client even with the right secret', async () => {
    const { clientSecret } = await clients.create(registration);
    await database.dataSource.getRepository(ClientEntity).update({ clientId: 'etl' }, { enabled: false });
    expect(await clients.authenticate('etl', clientSecret)).toBeNull();
  });

  it('rotates the secret: the old one stops working, the new one works', async () => {
    const first = await clients.create(registration);
    const rotated = await clients.rotateSecret('etl');
    expect(rotated.clientSecret).not.toBe(first.clientSecret);
    expect(await clients.authenticate('etl', first.clientSecret)).toBeNull();
    expect((await clients.authenticate('etl', rotated.clientSecret))?.clientId).toBe('etl');
  });

  it('refuses a second client with the same id, also when both are created at once', async () => {
    const results = await Promise.allSettled([clients.create(registration), clients.create(registration)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(ClientsError);
    expect((refused.reason as ClientsError).code).toBe('client_exists');
    expect(await clients.list()).toHaveLength(1);
  });

  it('puts a client without a tenant in the default tenant, and refuses an unknown tenant', async () => {
    const { client } = await clients.create(registration);
    expect(client.tenant?.name).toBe('default');
    await expect(clients.create({ ...registration, clientId: 'other', tenantName: 'nope' })).rejects.toMatchObject({
      code: 'tenant_not_found',
    });
  });

  it("registers the platform operator's integration in no tenant, client_credentials only, never also in a named tenant", async () => {
    const { client } = await clients.create({ ...registration, operator: true });
    expect(client).toMatchObject({ clientId: 'etl', tenantId: null });
    expect(client.tenant ?? null).toBeNull();
    expect((await clients.list()).map((c) => [c.clientId, c.tenantId])).toEqual([['etl', null]]);
    await expect(
      clients.create({ ...registration, clientId: 'etl-2', operator: true, tenantName: 'default' }),
    ).rejects.toMatchObject({ code: 'invalid_operator' });
    await expect(
      clients.create({
        clientId: 'app',
        name: 'App',
        grantTypes: ['authorization_code'],
        redirectUris: ['https://app.example.com/cb'],
        operator: true,
      }),
    ).rejects.toMatchObject({ code: 'invalid_operator' });
  });

  it('refuses in the database too a client of no tenant that may do more than client credentials', async () => {
    const { client } = await clients.create({ ...registration, operator: true });
    await expect(
      database.dataSource
        .getRepository(ClientEntity)
        .update({ clientId: client.clientId }, { grantTypes: ['client_credentials', 'authorization_code'] }),
    ).rejects.toThrow(/clients_tenantless_client_credentials/);
  });

  it('gives a public client (one that registered itself) no secret, and none to rotate; the database agrees', async () => {
    const at = new Date();
    const repository = new ClientRepository(database.dataSource);
    // The row the sign-in library's registration stores for a client that registered itself.
    await repository.insert(
      Object.assign(new ClientEntity(), {
        clientId: 'dcr-test',
        name: 'Host',
        tenantId: null,
        secretHash: null,
        secretRotatedAt: at,
        tokenEndpointAuthMethod: 'none',
        registration: 'dynamic',
        metadataExpiresAt: null,
        redirectUris: ['http://127.0.0.1:9/cb'],
        postLogoutRedirectUris: [],
        grantTypes: ['authorization_code'],
        scopes: ['mcp:all'],
        publicationStatus: 'Published',
        consentRequired: true,
        requirePkce: true,
        serviceAccountId: randomUUID(),
        enabled: true,
        createdAt: at,
        updatedAt: at,
      } satisfies Omit<ClientEntity, 'tenant'>),
    );
    await expect(clients.rotateSecret('dcr-test')).rejects.toMatchObject({ code: 'public_client' });
    expect(await clients.authenticate('dcr-test', '')).toBeNull();
    const rows = database.dataSource.getRepository(ClientEntity);
    await expect(rows.update({ clientId: 'dcr-test' }, { secretHash: Buffer.alloc(32) })).rejects.toThrow(
      /clients_public_without_secret/,
    );
    await expect(rows.update({ clientId: 'dcr-test' }, { requirePkce: false })).rejects.toThrow(/clients_public_pkce/);
    await expect(rows.update({ clientId: 'dcr-test' }, { registration: 'operator' })).rejects.toThrow(
      /clients_tenantless_client_credentials/,
    );
  });

  it('says when the client to rotate does not exist', async () => {
    await expect(clients.rotateSecret('nobody')).rejects.toMatchObject({ code: 'client_not_found' });
  });
});
