import { randomUUID } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { type TenantEntity, type UpstreamProfile, UserEntity } from '@fed/identity/internal';
import { IdpUserTokensEntity } from './idp-user-tokens.entity';

export type LinkOutcome =
  | { user: UserEntity & { tenant: TenantEntity } }
  | { refused: 'email_missing' | 'email_outside_domains' | 'account_exists' | 'not_approved' };

const USERNAME = /^[a-z0-9][a-z0-9._@-]{0,63}$/;

/** The fields of the user row the upstream owns: what tokens and userinfo carry (token-issuer.ts). */
function ownedFields(profile: UpstreamProfile & { email: string }, at: Date) {
  return {
    email: profile.email,
    emailVerified: profile.emailVerified,
    displayName: profile.name ?? profile.preferredUsername ?? profile.email,
    organization: profile.organization ?? null,
    job: profile.job ?? null,
    bio: profile.bio ?? null,
    updatedAt: at,
    lastLoginAt: at,
  };
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { driverError?: { code?: string } }).driverError?.code === '23505';
}

export class IdpAccountsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Never links an existing account by e-mail alone: a local user with the same address is refused, not taken
   * over. New users are approved (the provider vouches for its staff); the e-mail's unique key settles races.
   */
  async link(tenant: TenantEntity, profile: UpstreamProfile, at: Date): Promise<LinkOutcome> {
    if (profile.email === undefined) return { refused: 'email_missing' };
    // A tenant that lists domains vouches only for those, so its provider cannot take another tenant's address.
    if (!(await this.withinDomains(tenant, profile.email))) return { refused: 'email_outside_domains' };
    const fields = ownedFields({ ...profile, email: profile.email }, at);
    const linked = await this.linked(tenant, profile.subject);
    if (linked) return this.refresh(linked, fields);
    const id = randomUUID();
    const inserted = await this.dataSource.manager
      .createQueryBuilder()
      .insert()
      .into(UserEntity)
      .values({
        id,
        tenantId: tenant.id,
        username: USERNAME.test(profile.email) ? profile.email : id,
        passwordHash: null,
        role: 'user',
        developer: false,
        status: 'approved',
        idpSubject: profile.subject,
        sessionsValidAfter: null,
        createdAt: at,
        ...fields,
      })
      .orIgnore()
      .returning('id')
      .execute();
    if ((inserted.raw as unknown[]).length === 1) return { user: await this.userById(id) };
    const concurrent = await this.linked(tenant, profile.subject);
    return concurrent ? { user: concurrent } : { refused: 'account_exists' };
  }

  private async withinDomains(tenant: TenantEntity, email: string): Promise<boolean> {
    const domains = (await this.dataSource.query(
      `SELECT "domain" FROM "identity"."tenant_idp_domains" WHERE "tenant_id" = $1`,
      [tenant.id],
    )) as { domain: string }[];
    const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
    return domains.length === 0 || domains.some((row) => row.domain === domain);
  }

  saveTokens(row: Omit<IdpUserTokensEntity, 'user'>): Promise<unknown> {
    return this.dataSource.manager.upsert(IdpUserTokensEntity, row, ['userId']);
  }

  tokensOf(userId: string): Promise<IdpUserTokensEntity | null> {
    return this.dataSource.manager.findOneBy(IdpUserTokensEntity, { userId });
  }

  private async refresh(
    user: UserEntity & { tenant: TenantEntity },
    fields: ReturnType<typeof ownedFields>,
  ): Promise<LinkOutcome> {
    if (user.status !== 'approved') return { refused: 'not_approved' };
    try {
      await this.dataSource.manager.update(UserEntity, { id: user.id }, fields);
    } catch (error) {
      // The upstream moved the user to an address another account holds.
      if (isUniqueViolation(error)) return { refused: 'account_exists' };
      throw error;
    }
    return { user: { ...user, ...fields } };
  }

  private linked(tenant: TenantEntity, subject: string): Promise<(UserEntity & { tenant: TenantEntity }) | null> {
    return this.dataSource.manager.findOne(UserEntity, {
      where: { tenantId: tenant.id, idpSubject: subject },
      relations: { tenant: true },
    }) as Promise<(UserEntity & { tenant: TenantEntity }) | null>;
  }

  private async userById(id: string): Promise<UserEntity & { tenant: TenantEntity }> {
    return (await this.dataSource.manager.findOneOrFail(UserEntity, {
      where: { id },
      relations: { tenant: true },
    })) as UserEntity & { tenant: TenantEntity };
  }
}
