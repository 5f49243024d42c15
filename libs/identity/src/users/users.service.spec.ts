import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { identityEntities } from '..';
import { TenantEntity } from '../tenants/tenant.entity';
import { UserEntity } from './user.entity';
import { UserRepository } from './user.repository';
import { UsersError } from './users.errors';
import { DEFAULT_TENANT } from '../tenants/tenant.repository';
import { type NewUser, UsersService } from './users.service';

describe('users (real PostgreSQL)', () => {
  let database: TestDatabase;
  let users: UsersService;
  const alice: NewUser = {
    email: 'Alice@Example.com',
    displayName: 'Alice',
    password: 'correct horse battery',
    status: 'approved',
  };

  beforeEach(async () => {
    database = await createTestDatabase({ entities: identityEntities });
    users = new UsersService(new UserRepository(database.dataSource), {
      defaultTenantEndpoint: 'http://localhost:8080',
    });
  });
  afterEach(() => database?.drop());

  const codeOf = async (work: Promise<unknown>) => {
    try {
      await work;
    } catch (error) {
      return error instanceof UsersError ? error.code : 'not a UsersError';
    }
    return undefined;
  };

  it('stores an argon2id hash, never the password, and lower-cases the login', async () => {
    const { user } = await users.create(alice);
    expect(user).not.toHaveProperty('passwordHash');
    expect(user.email).toBe('alice@example.com');
    expect(user.username).toBe('alice@example.com');
    const [row] = await database.dataSource.getRepository(UserEntity).find();
    expect(row?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row?.passwordHash).not.toContain('correct horse');
  });

  it('puts a user without a tenant in the default saas tenant', async () => {
    const { user } = await users.create(alice);
    const tenant = await database.dataSource.getRepository(TenantEntity).findOneByOrFail({ id: user.tenantId });
    expect(tenant).toMatchObject({
      name: DEFAULT_TENANT,
      type: 'saas',
      endpoint: 'http://localhost:8080',
      enabled: true,
    });
  });

  it('verifies the password by e-mail or username, and refuses a wrong one or an unknown login', async () => {
    await users.create({ ...alice, username: 'alice' });
    expect((await users.verifyPassword('ALICE@example.com', 'correct horse battery'))?.username).toBe('alice');
    expect((await users.verifyPassword('alice', 'correct horse battery'))?.username).toBe('alice');
    expect(await users.verifyPassword('alice', 'correct horse batterY')).toBeNull();
    expect(await users.verifyPassword('nobody', 'correct horse battery')).toBeNull();
    expect(await users.verifyPassword('alice', 'x'.repeat(10_000))).toBeNull();
  });

  it('generates a password when none is given and returns it once', async () => {
    const { generatedPassword } = await users.create({ email: 'bob@example.com', displayName: 'Bob' });
    expect(generatedPassword).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(await users.verifyPassword('bob@example.com', generatedPassword as string)).not.toBeNull();
  });

  it('refuses bad e-mail addresses, names and passwords, and a taken e-mail address', async () => {
    expect(await codeOf(users.create({ ...alice, email: 'not-an-email' }))).toBe('invalid_email');
    expect(await codeOf(users.create({ ...alice, displayName: 'A\u0000' }))).toBe('invalid_name');
    expect(await codeOf(users.create({ ...alice, password: 'short' }))).toBe('invalid_password');
    expect(await codeOf(users.create({ ...alice, password: 'long enough\uD800' }))).toBe('invalid_password');
    await users.create(alice);
    expect(await codeOf(users.create({ ...alice, email: 'alice@EXAMPLE.com' }))).toBe('user_exists');
  });

  it('approves only pending users and rejects only approved ones', async () => {
    const { user } = await users.create({ ...alice, status: 'pending' });
    await users.approve(user.id);
    expect(await codeOf(users.approve(user.id))).toBe('invalid_status');
    await users.reject(user.id);
    expect((await users.findByLogin('alice@example.com')).status).toBe('pending');
    expect(await codeOf(users.reject(user.id))).toBe('invalid_status');
    expect(await codeOf(users.approve('00000000-0000-4000-8000-000000000000'))).toBe('user_not_found');
  });

  it('changes the role of approved users only; lowering an admin invalidates their sessions', async () => {
    const { user } = await users.create({ ...alice, role: 'admin' });
    expect(await users.setRole(user.id, 'admin')).toEqual({ sessionsInvalidated: false });
    expect(await users.setRole(user.id, 'user')).toEqual({ sessionsInvalidated: true });
    expect((await users.findByLogin('alice@example.com')).sessionsValidAfter).toBeInstanceOf(Date);
    expect(await users.setRole(user.id, 'admin')).toEqual({ sessionsInvalidated: false });
    const { user: pending } = await users.create({
      email: 'p@example.com',
      displayName: 'P',
      password: 'long enough 1',
    });
    expect(await codeOf(users.setRole(pending.id, 'admin'))).toBe('invalid_status');
  });

  it('makes only an admin a platform operator; turning it off ends their sessions and tells the services', async () => {
    const told: string[] = [];
    const telling = new UsersService(
      new UserRepository(database.dataSource),
      { defaultTenantEndpoint: 'http://localhost:8080' },
      { invalidate: async (userId) => void told.push(userId) },
    );
    const { user: admin } = await users.create({ ...alice, role: 'admin' });
    const { user: plain } = await users.create({ ...alice, email: 'bob@example.com', displayName: 'Bob' });
    expect(admin.platformOperator).toBe(false);

    expect(await telling.setPlatformOperator(admin.id, true)).toEqual({ sessionsInvalidated: false });
    expect(await users.findByLogin('alice@example.com')).toMatchObject({
      platformOperator: true,
      sessionsValidAfter: null,
    });
    expect(await codeOf(telling.setPlatformOperator(plain.id, true))).toBe('operator_needs_admin');
    expect(await codeOf(telling.setPlatformOperator('00000000-0000-4000-8000-000000000000', true))).toBe(
      'user_not_found',
    );
    expect((await users.findByLogin('bob@example.com')).platformOperator).toBe(false);
    expect(told).toEqual([]);

    expect(await telling.setPlatformOperator(admin.id, false)).toEqual({ sessionsInvalidated: true });
    const off = await users.findByLogin('alice@example.com');
    expect(off.platformOperator).toBe(false);
    expect(off.sessionsValidAfter).toBeInstanceOf(Date);
    expect(told).toEqual([admin.id]);
    // Off again is no change: nothing more ends.
    expect(await telling.setPlatformOperator(admin.id, false)).toEqual({ sessionsInvalidated: false });
    expect(told).toEqual([admin.id]);
  });

  it('keeps the flag of a demoted operator, who then holds nothing by it (and may not be made one again)', async () => {
    const { user } = await users.create({ ...alice, role: 'admin' });
    await users.setPlatformOperator(user.id, true);
    await users.setRole(user.id, 'user');
    expect(await users.findByLogin('alice@example.com')).toMatchObject({ role: 'user', platformOperator: true });
    expect(await codeOf(users.setPlatformOperator(user.id, true))).toBe('operator_needs_admin');
    expect(await users.setPlatformOperator(user.id, false)).toEqual({ sessionsInvalidated: true });
  });
});
