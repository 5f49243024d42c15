import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ClientRepository } from '../clients/client.repository';
import { ClientsService } from '../clients/clients.service';
import { identityEntities } from '..';
import { TenantEntity } from '../tenants/tenant.entity';
import { UserRepository } from '../users/user.repository';
import { UsersService } from '../users/users.service';
import { realmSchema } from './realm.schema';
import { RealmError, RealmService } from './realm.service';
import { type RealmFile } from './realm.types';

const settings = { defaultTenantEndpoint: 'http://localhost:8080' };
const crmSecret = 'crm-secret-that-is-long-enough-0123456789';

const realmFile = (): RealmFile => ({
  realm: 'federation',
  tenants: [{ name: 'acme', type: 'enterprise', endpoint: 'https://acme.example.com' }],
  clients: [
    {
      clientId: 'crm',
      name: 'CRM',
      secret: crmSecret,
      grantTypes: ['authorization_code', 'refresh_token'],
      redirectUris: ['https://crm.example.com/cb'],
      scopes: ['openid', 'chat:exec'],
      publicationStatus: 'Unpublished',
    },
    {
      clientId: 'etl',
      name: 'ETL service account',
      grantTypes: ['client_credentials'],
      scopes: ['users:read'],
      tenant: 'acme',
    },
  ],
  users: [
    {
      email: 'alice@acme.example.com',
      displayName: 'Alice',
      password: 'alice password 1',
      tenant: 'acme',
      role: 'admin',
    },
    { email: 'bob@example.com', displayName: 'Bob', organization: { id: 'sales', label: 'Sales' } },
  ],
});

async function problemsOf(work: Promise<unknown>): Promise<readonly string[]> {
  try {
    await work;
  } catch (error) {
    if (error instanceof RealmError) return error.problems;
    throw error;
  }
  return [];
}

describe('realm import and export (real PostgreSQL)', () => {
  let database: TestDatabase;
  let realm: RealmService;

  beforeEach(async () => {
    database = await createTestDatabase({ entities: identityEntities });
    realm = new RealmService(database.dataSource, settings);
  });
  afterEach(() => database?.drop());

  it('imports tenants, clients and users, generating a secret only for a new client that has none', async () => {
    const report = await realm.import(realmFile());
    expect(report.tenants).toEqual({ created: 1, updated: 0 });
    expect(report.clients).toEqual({ created: 2, updated: 0 });
    expect(report.users).toEqual({ created: 2, updated: 0 });
    expect(report.generatedSecrets.map((g) => g.clientId)).toEqual(['etl']);

    const clients = new ClientsService(new ClientRepository(database.dataSource), settings);
    expect((await clients.authenticate('crm', crmSecret))?.publicationStatus).toBe('Unpublished');
    expect((await clients.list()).map((c) => [c.clientId, c.tenant?.name])).toEqual([
      ['crm', 'default'],
      ['etl', 'acme'],
    ]);
    expect(await clients.authenticate('etl', report.generatedSecrets[0]?.secret as string)).not.toBeNull();
    const users = new UsersService(new UserRepository(database.dataSource), settings);
    const alice = await users.verifyPassword('alice@acme.example.com', 'alice password 1');
    expect(alice).toMatchObject({ role: 'admin', status: 'approved' });
    expect(alice?.tenant?.name).toBe('acme');
    expect((await users.findByLogin('bob@example.com')).tenant?.name).toBe('default');
  });

  it('ends the sessions of a user the file demotes or no longer approves, and tells the services', async () => {
    await realm.import(realmFile());
    const told: string[] = [];
    const telling = new RealmService(database.dataSource, {
      ...settings,
      invalidations: { invalidate: async (userId) => void told.push(userId) },
    });
    expect((await telling.import(realmFile())).sessionsEnded).toEqual([]);
    const file = realmFile();
    file.users = [
      { ...(file.users?.[0] as NonNullable<RealmFile['users']>[number]), role: 'user' },
      { ...(file.users?.[1] as NonNullable<RealmFile['users']>[number]), status: 'pending' },
    ];
    const report = await telling.import(file);
    const users = new UsersService(new UserRepository(database.dataSource), settings);
    const [alice, bob] = await Promise.all([
      users.findByLogin('alice@acme.example.com'),
      users.findByLogin('bob@example.com'),
    ]);
    expect(report.sessionsEnded).toEqual([alice.id, bob.id]);
    expect(told).toEqual([alice.id, bob.id]);
    expect(alice.sessionsValidAfter).toBeInstanceOf(Date);
    expect(bob.sessionsValidAfter).toEqual(alice.sessionsValidAfter);
  });

  it('tells the services of a role the file changes, demotion or promotion (auth.role-changed)', async () => {
    await realm.import(realmFile());
    const roles: [string, string][] = [];
    const telling = new RealmService(database.dataSource, {
      ...settings,
      invalidations: {
        invalidate: async () => undefined,
        roleChanged: async (userId, role) => void roles.push([userId, role]),
      },
    });
    const file = realmFile();
    file.users = [
      { ...(file.users?.[0] as NonNullable<RealmFile['users']>[number]), role: 'user' },
      { ...(file.users?.[1] as NonNullable<RealmFile['users']>[number]), role: 'admin' },
    ];
    await telling.import(file);
    const users = new UsersService(new UserRepository(database.dataSource), settings);
    const [alice, bob] = await Promise.all([
      users.findByLogin('alice@acme.example.com'),
      users.findByLogin('bob@example.com'),
    ]);
    expect(roles).toEqual([
      [alice.id, 'user'],
      [bob.id, 'admin'],
    ]);
  });

  it('imports a platform operator (an admin only), exports it, and imports that again (round trip)', async () => {
    const file = realmFile();
    const [alice, bob] = file.users as NonNullable<RealmFile['users']>;
    file.users = [{ ...alice, platformOperator: true }, bob];
    await realm.import(file);
    const users = new UsersService(new UserRepository(database.dataSource), settings);
    expect((await users.findByLogin('alice@acme.example.com')).platformOperator).toBe(true);
    expect((await users.findByLogin('bob@example.com')).platformOperator).toBe(false);
    const exported = await realm.export();
    expect(exported.users?.map((u) => [u.email, u.platformOperator])).toEqual([
      ['alice@acme.example.com', true],
      ['bob@example.com', undefined],
    ]);

    const other = await createTestDatabase({ entities: identityEntities });
    try {
      await new RealmService(other.dataSource, settings).import(exported);
      const imported = new UsersService(new UserRepository(other.dataSource), settings);
      expect((await imported.findByLogin('alice@acme.example.com')).platformOperator).toBe(true);
      expect((await imported.findByLogin('bob@example.com')).platformOperator).toBe(false);
    } finally {
      await other.drop();
    }
  });

  it('refuses a platform operator who is not an admin, and names the record', async () => {
    const file = realmFile();
    const [alice, bob] = file.users as NonNullable<RealmFile['users']>;
    file.users = [alice, { ...bob, platformOperator: true }];
    expect(await problemsOf(realm.import(file))).toEqual([
      '/users/1: only an admin (role admin) may be a platform operator',
    ]);
  });

  it("refuses platform:manage on a tenant's client_credentials client, and takes it on the operator's integration", async () => {
    const file = realmFile();
    const [crm, etl] = file.clients as NonNullable<RealmFile['clients']>;
    file.clients = [crm, { ...etl, scopes: ['platform:manage'] }];
    expect((await problemsOf(realm.import(file)))[0]).toMatch(
      /^\/clients\/1: platform:manage on a client_credentials client only for the platform operator's own integration/,
    );
    const { tenant: _tenant, ...tenantless } = etl;
    file.clients = [crm, { ...tenantless, scopes: ['platform:manage'], operator: true }];
    expect((await realm.import(file)).clients.created).toBe(2);
  });

  it('ends the sessions of a platform operator the file no longer makes one, and tells the services', async () => {
    const file = realmFile();
    const [alice, bob] = file.users as NonNullable<RealmFile['users']>;
    file.users = [{ ...alice, platformOperator: true }, bob];
    await realm.import(file);
    const told: string[] = [];
    const telling = new RealmService(database.dataSource, {
      ...settings,
      invalidations: { invalidate: async (userId) => void told.push(userId) },
    });
    expect((await telling.import(file)).sessionsEnded).toEqual([]);
    file.users = [alice, bob];
    const report = await telling.import(file);
    const users = new UsersService(new UserRepository(database.dataSource), settings);
    const operator = await users.findByLogin('alice@acme.example.com');
    expect(report.sessionsEnded).toEqual([operator.id]);
    expect(told).toEqual([operator.id]);
    expect(operator).toMatchObject({ platformOperator: false, role: 'admin' });
    expect(operator.sessionsValidAfter).toBeInstanceOf(Date);
  });

  it('takes a management scope on an authorization_code client only with allowManagementScopes, and exports the flag', async () => {
    const file = realmFile();
    const [crm, etl] = file.clients as NonNullable<RealmFile['clients']>;
    file.clients = [{ ...crm, scopes: ['openid', 'chat:exec', 'users:manage'] }, etl];
    expect((await problemsOf(realm.import(file))).join(' ')).toContain('allowManagementScopes');
    file.clients = [{ ...crm, scopes: ['openid', 'chat:exec', 'users:manage'], allowManagementScopes: true }, etl];
    await realm.import(file);
    const exported = await realm.export();
    expect(exported.clients?.find((c) => c.clientId === 'crm')).toMatchObject({ allowManagementScopes: true });
    expect(exported.clients?.find((c) => c.clientId === 'etl')).not.toHaveProperty('allowManagementScopes');
    // What is exported imports again.
    expect((await realm.import(exported)).clients).toEqual({ created: 0, updated: 2 });
  });

  it("imports the platform operator's integration in no tenant, exports it as operator, and imports that again (round trip)", async () => {
    const file = realmFile();
    const operator = {
      clientId: 'platform-ops',
      name: 'Platform operator',
      grantTypes: ['client_credentials' as const],
      scopes: ['logs:read', 'master:manage'],
      operator: true,
    };
    file.clients = [...(file.clients ?? []), operator];
    await realm.import(file);
    const clients = new ClientsService(new ClientRepository(database.dataSource), settings);
    expect((await clients.list()).map((c) => [c.clientId, c.tenantId === null])).toEqual([
      ['crm', false],
      ['etl', false],
      ['platform-ops', true],
    ]);
    const exported = await realm.export();
    const written = exported.clients?.find((c) => c.clientId === 'platform-ops');
    expect(written).toMatchObject({ operator: true, grantTypes: ['client_credentials'] });
    expect(written).not.toHaveProperty('tenant');
    expect(exported.clients?.find((c) => c.clientId === 'etl')).toMatchObject({ tenant: 'acme' });
    expect(exported.clients?.find((c) => c.clientId === 'etl')).not.toHaveProperty('operator');

    const other = await createTestDatabase({ entities: identityEntities });
    try {
      const otherRealm = new RealmService(other.dataSource, settings);
      await otherRealm.import(exported);
      expect(await otherRealm.export()).toEqual(exported);
    } finally {
      await other.drop();
    }
    // The file decides: the same client without `operator` moves to the default tenant.
    file.clients = file.clients.map((c) => (c.clientId === 'platform-ops' ? { ...c, operator: false } : c));
    await realm.import(file);
    expect((await clients.list()).find((c) => c.clientId === 'platform-ops')?.tenant?.name).toBe('default');
  });

  it('imports a public client without a secret, exports it as public, and turns it confidential with a new secret', async () => {
    const file = realmFile();
    const web = {
      clientId: 'web',
      name: 'Web app',
      grantTypes: ['authorization_code' as const, 'refresh_token' as const],
      redirectUris: ['https://app.example.com/'],
      scopes: ['openid', 'chat:exec'],
      public: true,
    };
    file.clients = [...(file.clients ?? []), web];
    const report = await realm.import(file);
    expect(report.generatedSecrets.map((g) => g.clientId)).toEqual(['etl']);
    const clients = new ClientsService(new ClientRepository(database.dataSource), settings);
    expect((await clients.list()).find((c) => c.clientId === 'web')?.tokenEndpointAuthMethod).toBe('none');
    const exported = await realm.export();
    const written = exported.clients?.find((c) => c.clientId === 'web');
    expect(written).toMatchObject({ public: true });
    expect(written).not.toHaveProperty('secretSha256');
    expect((await realm.import(exported)).generatedSecrets).toEqual([]);

    expect(() => realm.validate({ ...file, clients: [{ ...web, secret: 'x'.repeat(40) }] })).toThrow(RealmError);
    expect(() => realm.validate({ ...file, clients: [{ ...web, grantTypes: ['client_credentials'] }] })).toThrow(
      /public client/,
    );
    file.clients = file.clients.map((c) => (c.clientId === 'web' ? { ...c, public: false } : c));
    expect((await realm.import(file)).generatedSecrets.map((g) => g.clientId)).toEqual(['web']);
    expect((await clients.list()).find((c) => c.clientId === 'web')?.tokenEndpointAuthMethod).toBe(
      'client_secret_basic',
    );
  });

  it('refuses an operator client that names a tenant or may do more than client credentials', async () => {
    const file = realmFile();
    file.clients = [
      { clientId: 'ops-a', name: 'A', grantTypes: ['client_credentials'], operator: true, tenant: 'acme' },
      {
        clientId: 'ops-b',
        name: 'B',
        grantTypes: ['authorization_code'],
        redirectUris: ['https://b.example.com/cb'],
        operator: true,
      },
    ];
    expect(await problemsOf(realm.import(file))).toEqual([
      "/clients/0: the platform operator's integration (operator) belongs to no tenant",
      expect.stringMatching(
        /^\/clients\/1: only a client_credentials client may be the platform operator's integration/,
      ),
    ]);
  });

  it('is idempotent: importing the same file again changes nothing', async () => {
    await realm.import(realmFile());
    const before = await realm.export();
    const again = await realm.import(realmFile());
    expect(again.tenants).toEqual({ created: 0, updated: 1 });
    expect(again.generatedSecrets).toEqual([]);
    expect(await realm.export()).toEqual(before);
  });

  it('exports what another installation imports to the same state, without any plain secret', async () => {
    await realm.import(realmFile());
    const exported = await realm.export();
    const text = JSON.stringify(exported);
    expect(text).not.toContain(crmSecret);
    expect(text).not.toContain('alice password 1');

    const other = await createTestDatabase({ entities: identityEntities });
    try {
      const otherRealm = new RealmService(other.dataSource, settings);
      await otherRealm.import(exported);
      expect(await otherRealm.export()).toEqual(exported);
      const clients = new ClientsService(new ClientRepository(other.dataSource), settings);
      expect(await clients.authenticate('crm', crmSecret)).not.toBeNull();
    } finally {
      await other.drop();
    }
  });

  it('reports every structural problem with its path', async () => {
    const file = realmFile() as unknown as Record<string, unknown[]>;
    (file.clients?.[0] as Record<string, unknown>).grantTypes = ['password'];
    (file.users?.[1] as Record<string, unknown>).shoeSize = 42;
    const problems = await problemsOf(realm.import(file));
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\/clients\/0\/grantTypes\/0: /),
        expect.stringMatching(/^\/users\/1: must NOT have additional properties/),
      ]),
    );
  });

  it('applies the same rules as every other way in, and names the record', async () => {
    const file = realmFile();
    file.clients![0]!.redirectUris = ['http://crm.example.com/cb'];
    file.users![0]!.displayName = 'Alice\u0000';
    file.clients!.push({ ...file.clients![1]! });
    const problems = await problemsOf(realm.import(file));
    expect(problems).toEqual([
      expect.stringMatching(/^\/clients\/0: redirect URI .* must use https/),
      '/clients/2: client etl appears twice',
      '/users/0: name must be 1-200 printable characters',
    ]);
  });

  it('writes nothing when any record is refused (all or nothing)', async () => {
    const file = realmFile();
    file.users![1]!.tenant = 'no-such-tenant';
    const problems = await problemsOf(realm.import(file));
    expect(problems).toEqual(['/users/1/tenant: no tenant named "no-such-tenant"']);
    expect(await database.dataSource.getRepository(TenantEntity).count()).toBe(0);
    expect((await realm.export()).clients).toEqual([]);
  });

  it('refuses a client of a tenant that does not exist', async () => {
    const file = realmFile();
    file.clients![0]!.tenant = 'nowhere';
    expect(await problemsOf(realm.import(file))).toEqual(['/clients/0/tenant: no tenant named "nowhere"']);
  });

  it('refuses a file that is not a realm file at all', async () => {
    for (const input of [null, [], 'federation', { realm: 'other' }, { realm: 'federation', clients: 'x' }]) {
      expect((await problemsOf(realm.import(input))).length).toBeGreaterThan(0);
    }
  });

  it('refuses to change the service account of an existing client', async () => {
    await realm.import(realmFile());
    const file = realmFile();
    file.clients![1]!.serviceAccountId = '00000000-0000-4000-8000-000000000000';
    expect(await problemsOf(realm.import(file))).toEqual([expect.stringContaining('serviceAccountId cannot change')]);
  });
});

describe('the published realm JSON Schema', () => {
  it('is docs/realm.schema.json, equal to the one the importer uses', () => {
    const published = JSON.parse(readFileSync(path.resolve(__dirname, '../../../../docs/realm.schema.json'), 'utf8'));
    expect(published).toEqual(JSON.parse(JSON.stringify(realmSchema)));
  });
});
