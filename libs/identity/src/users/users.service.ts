import { hash, verify } from '@node-rs/argon2';
import { isPrintableLine, isStorableText } from '@fed/contracts';
import { randomBytes, randomUUID } from 'node:crypto';
import { DEFAULT_TENANT } from '../tenants/tenant.repository';
import { type Labelled, type UserRole, type UserStatus, UserEntity, userRoles, userStatuses } from './user.entity';
import { UserRepository, type UserScope } from './user.repository';
import { type SessionInvalidations } from './session-invalidations';
import { UsersError } from './users.errors';

export type UserView = Omit<UserEntity, 'passwordHash'>;

export interface NewUser {
  email: string;
  username?: string;
  displayName: string;
  /** Omitted: a password is generated and returned once. */
  password?: string;
  role?: UserRole;
  developer?: boolean;
  status?: UserStatus;
  tenantName?: string;
  organization?: Labelled;
  job?: Labelled;
  bio?: string;
}

export interface UsersSettings {
  /** `tenant.endpoint` of the default tenant created on first use. */
  defaultTenantEndpoint: string;
  now?: () => Date;
}

// argon2id (the library default; a test checks the PHC prefix) with OWASP's parameters.
const ARGON2 = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}\.[^\s@]{2,63}$/;
const USERNAME = /^[a-z0-9][a-z0-9._@-]{0,63}$/;
const MIN_PASSWORD = 8;
const MAX_PASSWORD = 256;

function toView(user: UserEntity): UserView {
  const { passwordHash: _passwordHash, ...view } = user;
  return view;
}

export class UsersService {
  private readonly now: () => Date;
  // Verified against when the login is unknown, so the answer takes as long as for a known user.
  private readonly decoyHash: Promise<string>;

  constructor(
    private readonly repository: UserRepository,
    private readonly settings: UsersSettings,
    private readonly invalidations?: SessionInvalidations,
  ) {
    this.now = settings.now ?? (() => new Date());
    this.decoyHash = hash(randomBytes(16).toString('hex'), ARGON2);
  }

  async create(input: NewUser): Promise<{ user: UserView; generatedPassword?: string }> {
    const { email, username, displayName, role, status } = validateUserFields(input);
    if (input.bio !== undefined) validateBio(input.bio);
    const generatedPassword = input.password === undefined ? randomBytes(18).toString('base64url') : undefined;
    const passwordHash = await hashPassword(input.password ?? (generatedPassword as string));

    const at = this.now();
    const tenantName = input.tenantName ?? DEFAULT_TENANT;
    const tenant = await this.repository.tenantNamed(tenantName, this.settings.defaultTenantEndpoint);
    if (!tenant) throw new UsersError('tenant_not_found', `no tenant named ${JSON.stringify(tenantName)}`);
    const user = Object.assign(new UserEntity(), {
      id: randomUUID(),
      tenantId: tenant.id,
      email,
      emailVerified: false,
      username,
      displayName,
      passwordHash,
      role,
      developer: input.developer ?? false,
      platformOperator: false,
      status,
      organization: input.organization ?? null,
      job: input.job ?? null,
      bio: input.bio ?? null,
      idpSubject: null,
      sessionsValidAfter: null,
      createdAt: at,
      updatedAt: at,
      lastLoginAt: null,
    });
    if (!(await this.repository.insert(user))) {
      throw new UsersError('user_exists', 'a user with this e-mail address or username exists');
    }
    return { user: toView((await this.repository.find(user.id)) as UserEntity), generatedPassword };
  }

  async verifyPassword(login: string, password: string): Promise<UserView | null> {
    return this.checkLoginPassword(await this.findForLogin(login), password);
  }

  /** Found before the password check, so the throttle counts by user (e-mail and username share one budget). */
  async findForLogin(login: string): Promise<UserEntity | null> {
    const normalized = login.trim().toLowerCase();
    return normalized.length <= 254 ? this.repository.findByLogin(normalized) : null;
  }

  /** The decoy hash keeps an unknown user as slow. */
  async checkLoginPassword(user: UserEntity | null, password: string): Promise<UserView | null> {
    if (password.length > MAX_PASSWORD) return null;
    const stored = user?.passwordHash ?? (await this.decoyHash);
    const matches = await verifyPasswordHash(stored, password);
    return user && user.passwordHash && matches ? toView(user) : null;
  }

  /** The admin User object's `lastLoginAt`. */
  async recordLogin(userId: string): Promise<void> {
    await this.repository.recordLogin(userId, this.now());
  }

  any(): Promise<boolean> {
    return this.repository.any();
  }

  async list(): Promise<UserView[]> {
    return (await this.repository.list()).map(toView);
  }

  async findByLogin(login: string): Promise<UserView> {
    const user = await this.repository.findByLogin(login.trim().toLowerCase());
    if (!user) throw new UsersError('user_not_found', 'no such user');
    return toView(user);
  }

  /** Any other status is refused (admin API: 400); a user outside `scope` is not found. */
  approve(userId: string, scope: UserScope = {}): Promise<void> {
    return this.transition(userId, 'pending', 'approved', this.now(), scope);
  }

  /** approved -> pending; the user's existing sessions end. */
  async reject(userId: string, scope: UserScope = {}): Promise<void> {
    const at = this.now();
    await this.transition(userId, 'approved', 'pending', at, scope);
    await this.invalidations?.invalidate(userId, at);
  }

  /** Approved users only; lowering admin to user ends their sessions. */
  async setRole(userId: string, role: UserRole, scope: UserScope = {}): Promise<{ sessionsInvalidated: boolean }> {
    if (!userRoles.includes(role)) throw new UsersError('invalid_role', 'role must be admin or user');
    const at = this.now();
    const result = await this.repository.setRole(userId, role, at, scope);
    if (!result.changed) await this.explainRefusal(userId, 'the user is not approved', scope);
    if (result.sessionsInvalidated) await this.invalidations?.invalidate(userId, at);
    // Admin calls check the current role, so the change holds from the next one.
    await this.invalidations?.roleChanged?.(userId, role, at);
    return { sessionsInvalidated: result.sessionsInvalidated };
  }

  /**
   * A platform operator (an account of the platform itself) holds `platform:manage` while also an admin; only an
   * admin may become one. Turning it off ends the user's sessions everywhere, as a demotion does. Never called by
   * a tenant-facing route: platformctl and realm files only.
   */
  async setPlatformOperator(userId: string, operator: boolean): Promise<{ sessionsInvalidated: boolean }> {
    const at = this.now();
    const result = await this.repository.setPlatformOperator(userId, operator, at);
    if (!result.changed) {
      if (!(await this.repository.findInScope(userId, {}))) throw new UsersError('user_not_found', 'no such user');
      throw new UsersError('operator_needs_admin', 'only an admin may be a platform operator');
    }
    if (result.sessionsInvalidated) await this.invalidations?.invalidate(userId, at);
    return { sessionsInvalidated: result.sessionsInvalidated };
  }

  /** Also ends the access tokens already issued to them everywhere, as a lowered role does. */
  async delete(userId: string, scope: UserScope = {}): Promise<void> {
    const at = this.now();
    if (!(await this.repository.delete(userId, scope))) throw new UsersError('user_not_found', 'no such user');
    await this.invalidations?.invalidate(userId, at);
  }

  private async transition(
    userId: string,
    from: UserStatus,
    to: UserStatus,
    at = this.now(),
    scope: UserScope = {},
  ): Promise<void> {
    if (!(await this.repository.transition(userId, from, to, at, scope))) {
      await this.explainRefusal(userId, `the user's status is not ${from}`, scope);
    }
  }

  private async explainRefusal(userId: string, why: string, scope: UserScope = {}): Promise<never> {
    if (!(await this.repository.findInScope(userId, scope))) throw new UsersError('user_not_found', 'no such user');
    throw new UsersError('invalid_status', why);
  }
}

export interface UserFields {
  email: string;
  username?: string;
  displayName: string;
  role?: UserRole;
  status?: UserStatus;
}

/** However the record arrives (CLI, realm file, admin API). */
export function validateUserFields(input: UserFields): Required<UserFields> {
  const email = input.email.trim().toLowerCase();
  if (email.length > 254 || !EMAIL.test(email) || !isPrintableLine(email)) {
    throw new UsersError('invalid_email', 'email must be an e-mail address');
  }
  const username = (input.username ?? email).trim().toLowerCase();
  if (!USERNAME.test(username))
    throw new UsersError('invalid_username', 'username must be 1-64 of a-z, 0-9, ".", "_", "@", "-"');
  const displayName = input.displayName.trim();
  if (displayName.length === 0 || displayName.length > 200 || !isPrintableLine(displayName)) {
    throw new UsersError('invalid_name', 'name must be 1-200 printable characters');
  }
  const role = input.role ?? 'user';
  if (!userRoles.includes(role)) throw new UsersError('invalid_role', 'role must be admin or user');
  const status = input.status ?? 'pending';
  if (!userStatuses.includes(status))
    throw new UsersError('invalid_status', `status must be one of ${userStatuses.join(', ')}`);
  return { email, username, displayName, role, status };
}

export function validateBio(bio: string): void {
  if (bio.length > 2000 || !isStorableText(bio))
    throw new UsersError('invalid_name', 'bio must be at most 2000 characters of storable text');
}

export async function hashPassword(password: string): Promise<string> {
  checkPassword(password);
  return hash(password, ARGON2);
}

export function verifyPasswordHash(passwordHash: string, password: string): Promise<boolean> {
  return verify(passwordHash, password).catch(() => false);
}

export function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD || password.length > MAX_PASSWORD || !isStorableText(password)) {
    throw new UsersError('invalid_password', `password must be ${MIN_PASSWORD}-${MAX_PASSWORD} characters`);
  }
}
