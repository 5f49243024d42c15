import Ajv, { type ValidateFunction } from 'ajv';
import { isManagementScope } from '@fed/contracts';
import { randomBytes, randomUUID } from 'node:crypto';
import { type DataSource, type EntityManager } from 'typeorm';
import { ClientEntity } from '../clients/client.entity';
import { validateRegistration } from '../clients/client-registration';
import { ClientsError } from '../clients/clients.errors';
import { hashClientSecret } from '../clients/clients.service';
import { TenantEntity } from '../tenants/tenant.entity';
import { UserEntity, type UserRole } from '../users/user.entity';
import { UsersError } from '../users/users.errors';
import { IdpError } from '../idp/idp.errors';
import { validateIdpSettings } from '../idp/tenant-idp.rules';
import { type TenantIdpsService } from '../idp/tenant-idps.service';
import { DEFAULT_TENANT, tenantNamed } from '../tenants/tenant.repository';
import { hashPassword, validateBio, validateUserFields, verifyPasswordHash } from '../users/users.service';
import { realmSchema } from './realm.schema';
import { type SessionInvalidations } from '../users/session-invalidations';
import { type ImportReport, type RealmClient, type RealmFile, type RealmUser } from './realm.types';

export class RealmError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(
      `the realm file was refused:\n  ${problems.slice(0, 50).join('\n  ')}${problems.length > 50 ? `\n  ... and ${problems.length - 50} more` : ''}`,
    );
    this.name = 'RealmError';
  }
}

// Compiled lazily: most processes that load this module never validate a realm.
let compiledSchema: ValidateFunction<RealmFile> | undefined;
function validateSchema(): ValidateFunction<RealmFile> {
  compiledSchema ??= new Ajv({
    allErrors: true,
    useDefaults: false,
    strict: true,
    strictRequired: false,
  }).compile<RealmFile>(realmSchema);
  return compiledSchema;
}
function registrationOf(client: RealmClient): RealmClient & { publicClient?: boolean } {
  return { ...client, publicClient: client.public };
}

// Imports of one realm serialize; transaction-scoped, so it also holds on the embedded PostgreSQL.
const IMPORT_LOCK = "hashtext('identity.realm-import')";

export interface RealmSettings {
  defaultTenantEndpoint: string;
  /** Told of users whose sessions the import ended; absent: their access tokens expire by themselves. */
  invalidations?: SessionInvalidations;
  /** Absent: files with an identity provider are refused. */
  identityProviders?: () => Promise<TenantIdpsService>;
  now?: () => Date;
}

/** Import is one idempotent transaction, matching by tenant name, client id and e-mail; the file's values win. */
export class RealmService {
  private readonly now: () => Date;

  constructor(
    private readonly dataSource: DataSource,
    private readonly settings: RealmSettings,
  ) {
    this.now = settings.now ?? (() => new Date());
  }

  /** Reports every problem at once. */
  validate(input: unknown): RealmFile {
    const schema = validateSchema();
    if (!schema(input)) {
      throw new RealmError((schema.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message ?? 'invalid'}`));
    }
    const problems: string[] = [];
    const tenants = new Set((input.tenants ?? []).map((t) => t.name));
    if (tenants.size !== (input.tenants ?? []).length) problems.push('/tenants: names must be unique');
    validateTenantIdps(input, problems);
    const clientIds = new Set<string>();
    (input.clients ?? []).forEach((client, index) => {
      if (clientIds.has(client.clientId)) problems.push(`/clients/${index}: client ${client.clientId} appears twice`);
      clientIds.add(client.clientId);
      explain(problems, `/clients/${index}`, () => validateRegistration(registrationOf(client)));
      if (client.operator === true && client.tenant !== undefined) {
        problems.push(`/clients/${index}: the platform operator's integration (operator) belongs to no tenant`);
      }
    });
    const emails = new Set<string>();
    (input.users ?? []).forEach((user, index) => {
      explain(problems, `/users/${index}`, () => {
        const { email, role } = validateUserFields(user);
        if (emails.has(email)) throw new UsersError('user_exists', `${email} appears twice`);
        if (user.platformOperator === true && role !== 'admin') {
          throw new UsersError('operator_needs_admin', 'only an admin (role admin) may be a platform operator');
        }
        emails.add(email);
        if (user.bio !== undefined) validateBio(user.bio);
      });
    });
    if (problems.length > 0) throw new RealmError(problems);
    return input;
  }

  async import(input: unknown): Promise<ImportReport> {
    const realm = this.validate(input);
    const report: ImportReport = {
      tenants: { created: 0, updated: 0 },
      clients: { created: 0, updated: 0 },
      users: { created: 0, updated: 0 },
      generatedSecrets: [],
      sessionsEnded: [],
    };
    // Slow work (argon2) before the transaction, so it stays short.
    const at = this.now();
    const passwordHashes = await Promise.all(
      (realm.users ?? []).map((u) => (u.password ? hashPassword(u.password) : undefined)),
    );
    const identityProviders = await this.identityProvidersFor(realm);
    const rolesChanged: { userId: string; role: UserRole }[] = [];
    await this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(${IMPORT_LOCK})`);
      for (const tenant of realm.tenants ?? []) {
        const existing = await manager.findOneBy(TenantEntity, { name: tenant.name });
        const values = { type: tenant.type, endpoint: tenant.endpoint, enabled: tenant.enabled ?? true };
        if (existing) await manager.update(TenantEntity, { id: existing.id }, values);
        else await manager.insert(TenantEntity, { id: randomUUID(), name: tenant.name, ...values, createdAt: at });
        report.tenants[existing ? 'updated' : 'created']++;
      }
      for (const [index, tenant] of (realm.tenants ?? []).entries()) {
        const idp = tenant.idp;
        if (idp && identityProviders) {
          await explained(`/tenants/${index}/idp`, () => identityProviders.setWithin(manager, tenant.name, idp));
        }
      }
      for (const [index, client] of (realm.clients ?? []).entries())
        await this.importClient(manager, client, index, at, report);
      for (const [index, user] of (realm.users ?? []).entries()) {
        const changed = await this.importUser(manager, user, passwordHashes[index], index, at, report);
        if (changed) rolesChanged.push(changed);
      }
    });
    for (const userId of report.sessionsEnded) await this.settings.invalidations?.invalidate(userId, at);
    for (const { userId, role } of rolesChanged) await this.settings.invalidations?.roleChanged?.(userId, role, at);
    return report;
  }

  async export(): Promise<RealmFile> {
    const manager = this.dataSource.manager;
    const identityProviders = await this.settings.identityProviders?.();
    const [tenants, clients, users] = await Promise.all([
      manager.find(TenantEntity, { order: { name: 'ASC' } }),
      // Clients that registered themselves are not the operator's to export: they register again on first use.
      manager.find(ClientEntity, {
        where: { registration: 'operator' },
        order: { clientId: 'ASC' },
        relations: { tenant: true },
      }),
      manager.find(UserEntity, { order: { email: 'ASC' }, relations: { tenant: true } }),
    ]);
    return {
      realm: 'federation',
      tenants: await Promise.all(
        tenants.map(async (t) => {
          // The client secret is never written out: an import keeps the stored one.
          const idp = await identityProviders?.viewOfTenant(t);
          const exported = idp
            ? {
                issuer: idp.issuer,
                clientId: idp.clientId,
                scopes: idp.scopes,
                domains: idp.domains,
                claims: idp.claims,
              }
            : undefined;
          return {
            name: t.name,
            type: t.type,
            endpoint: t.endpoint,
            enabled: t.enabled,
            ...(exported ? { idp: exported } : {}),
          };
        }),
      ),
      clients: clients.map((c) => ({
        clientId: c.clientId,
        name: c.name,
        ...(c.secretHash === null ? { public: true } : { secretSha256: c.secretHash.toString('hex') }),
        grantTypes: c.grantTypes,
        redirectUris: c.redirectUris,
        postLogoutRedirectUris: c.postLogoutRedirectUris,
        scopes: c.scopes,
        publicationStatus: c.publicationStatus,
        consentRequired: c.consentRequired,
        requirePkce: c.requirePkce,
        // Registered with the flag, so an import of this file registers it again.
        ...(c.grantTypes.includes('authorization_code') && c.scopes.some(isManagementScope)
          ? { allowManagementScopes: true }
          : {}),
        enabled: c.enabled,
        serviceAccountId: c.serviceAccountId,
        ...(c.tenantId === null ? { operator: true } : { tenant: c.tenant?.name ?? DEFAULT_TENANT }),
      })),
      users: users.map((u) => ({
        email: u.email,
        username: u.username,
        displayName: u.displayName,
        emailVerified: u.emailVerified,
        ...(u.passwordHash ? { passwordHash: u.passwordHash } : {}),
        role: u.role,
        developer: u.developer,
        // A demoted operator's flag holds nothing and is not written: an import refuses it on a non-admin.
        ...(u.platformOperator && u.role === 'admin' ? { platformOperator: true } : {}),
        status: u.status,
        tenant: u.tenant?.name ?? DEFAULT_TENANT,
        ...(u.organization ? { organization: u.organization } : {}),
        ...(u.job ? { job: u.job } : {}),
        ...(u.bio !== null ? { bio: u.bio } : {}),
        ...(u.idpSubject !== null ? { idpSubject: u.idpSubject } : {}),
      })),
    };
  }

  private async identityProvidersFor(realm: RealmFile): Promise<TenantIdpsService | undefined> {
    if (!(realm.tenants ?? []).some((tenant) => tenant.idp)) return undefined;
    if (!this.settings.identityProviders) throw new RealmError(['/tenants: identity providers cannot be stored here']);
    return this.settings.identityProviders();
  }

  private async importClient(
    manager: EntityManager,
    client: RealmClient,
    index: number,
    at: Date,
    report: ImportReport,
  ): Promise<void> {
    const valid = validateRegistration(registrationOf(client));
    const tenantId = client.operator === true ? null : await this.clientTenantId(manager, client, index);
    const existing = await manager.findOneBy(ClientEntity, { clientId: client.clientId });
    if (existing && existing.registration !== 'operator') {
      throw new RealmError([`/clients: ${client.clientId}: a client that registered itself cannot be imported over`]);
    }
    if (existing && client.serviceAccountId && client.serviceAccountId !== existing.serviceAccountId) {
      throw new RealmError([
        `/clients: ${client.clientId}: serviceAccountId cannot change (it is the sub of its tokens)`,
      ]);
    }
    const publicClient = valid.tokenEndpointAuthMethod === 'none';
    let secretHash: Buffer | null | undefined = publicClient
      ? null
      : client.secret
        ? hashClientSecret(client.secret)
        : client.secretSha256
          ? Buffer.from(client.secretSha256, 'hex')
          : undefined;
    // A new confidential client, or a public one becoming confidential, needs a secret.
    if (secretHash === undefined && !existing?.secretHash) {
      const secret = randomBytes(32).toString('base64url');
      report.generatedSecrets.push({ clientId: client.clientId, secret });
      secretHash = hashClientSecret(secret);
    }
    const values = { ...valid, tenantId, enabled: client.enabled ?? true, updatedAt: at };
    if (existing) {
      const secretChanged =
        secretHash !== undefined &&
        (secretHash === null || existing.secretHash === null
          ? secretHash !== existing.secretHash
          : !secretHash.equals(existing.secretHash));
      await manager.update(
        ClientEntity,
        { clientId: client.clientId },
        {
          ...values,
          ...(secretChanged ? { secretHash, secretRotatedAt: at } : {}),
        },
      );
    } else {
      await manager.insert(ClientEntity, {
        ...values,
        secretHash: secretHash as Buffer | null,
        secretRotatedAt: at,
        serviceAccountId: client.serviceAccountId ?? randomUUID(),
        createdAt: at,
      });
    }
    report.clients[existing ? 'updated' : 'created']++;
  }

  private async clientTenantId(manager: EntityManager, client: RealmClient, index: number): Promise<string> {
    const tenantName = client.tenant ?? DEFAULT_TENANT;
    const tenant = await tenantNamed(manager, tenantName, this.settings.defaultTenantEndpoint);
    if (!tenant) throw new RealmError([`/clients/${index}/tenant: no tenant named ${JSON.stringify(tenantName)}`]);
    return tenant.id;
  }

  private async importUser(
    manager: EntityManager,
    user: RealmUser,
    newPasswordHash: string | undefined,
    index: number,
    at: Date,
    report: ImportReport,
  ): Promise<{ userId: string; role: UserRole } | undefined> {
    const fields = validateUserFields({ ...user, status: user.status ?? 'approved' });
    const tenantName = user.tenant ?? DEFAULT_TENANT;
    const tenant = await tenantNamed(manager, tenantName, this.settings.defaultTenantEndpoint);
    if (!tenant) throw new RealmError([`/users/${index}/tenant: no tenant named ${JSON.stringify(tenantName)}`]);
    const existing = await manager.findOneBy(UserEntity, { email: fields.email });
    // Re-importing the same plain password keeps the stored hash: import stays idempotent.
    let passwordHash = user.passwordHash ?? existing?.passwordHash ?? null;
    if (user.password && newPasswordHash) {
      const unchanged = existing?.passwordHash && (await verifyPasswordHash(existing.passwordHash, user.password));
      passwordHash = unchanged ? (existing?.passwordHash as string) : newPasswordHash;
    }
    // A user the file demotes (role, developer, platform operator) or no longer approves loses their sessions, as
    // by platformctl.
    const platformOperator = user.platformOperator ?? false;
    const sessionsEnd =
      existing !== null &&
      ((existing.role === 'admin' && fields.role !== 'admin') ||
        (existing.developer && !(user.developer ?? false)) ||
        (existing.platformOperator && !platformOperator) ||
        (existing.status === 'approved' && fields.status !== 'approved'));
    if (sessionsEnd) report.sessionsEnded.push(existing.id);
    const values = {
      ...(sessionsEnd ? { sessionsValidAfter: at } : {}),
      tenantId: tenant.id,
      username: fields.username,
      displayName: fields.displayName,
      emailVerified: user.emailVerified ?? false,
      passwordHash,
      role: fields.role,
      developer: user.developer ?? false,
      platformOperator,
      status: fields.status,
      organization: user.organization ?? null,
      job: user.job ?? null,
      bio: user.bio ?? null,
      idpSubject: user.idpSubject ?? null,
      updatedAt: at,
    };
    try {
      if (existing) await manager.update(UserEntity, { id: existing.id }, values);
      else
        await manager.insert(UserEntity, {
          id: randomUUID(),
          email: fields.email,
          ...values,
          sessionsValidAfter: null,
          createdAt: at,
          lastLoginAt: null,
        });
    } catch (error) {
      if ((error as { driverError?: { code?: string } }).driverError?.code === '23505') {
        throw new RealmError([`/users/${index}: username ${fields.username} belongs to another user`]);
      }
      throw error;
    }
    report.users[existing ? 'updated' : 'created']++;
    return existing && existing.role !== fields.role ? { userId: existing.id, role: fields.role } : undefined;
  }
}

function explain(problems: string[], path: string, check: () => unknown): void {
  try {
    check();
  } catch (error) {
    if (error instanceof ClientsError || error instanceof UsersError || error instanceof IdpError) {
      problems.push(`${path}: ${error.message}`);
    } else throw error;
  }
}

/** A refusal of the store (a domain another tenant holds, a missing secret) with its path in the file. */
async function explained(path: string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof IdpError) throw new RealmError([`${path}: ${error.message}`]);
    throw error;
  }
}

function validateTenantIdps(realm: RealmFile, problems: string[]): void {
  const domains = new Set<string>();
  (realm.tenants ?? []).forEach((tenant, index) => {
    const idp = tenant.idp;
    if (!idp) return;
    const path = `/tenants/${index}/idp`;
    if (tenant.type !== 'enterprise') problems.push(`${path}: only enterprise tenants sign in with their own provider`);
    explain(problems, path, () => {
      for (const domain of validateIdpSettings(idp).domains) {
        if (domains.has(domain)) throw new IdpError('domain_taken', `the e-mail domain ${domain} appears twice`);
        domains.add(domain);
      }
    });
  });
}
