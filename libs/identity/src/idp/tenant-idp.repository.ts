import { In, IsNull, type DataSource, type EntityManager } from 'typeorm';
import { JobTypeEntity, OrganizationEntity } from '../master-data/master-data.entity';
import { TenantEntity } from '../tenants/tenant.entity';
import { type TenantKey } from '../tenants/tenant.repository';
import { type ClaimMapping } from './claim-mapping';
import { IdpError } from './idp.errors';
import { TenantIdpDomainEntity, TenantIdpEntity } from './tenant-idp.entity';

export interface StoredIdp {
  tenant: TenantEntity;
  provider: TenantIdpEntity;
  domains: string[];
}

export interface IdpRow {
  issuer: string;
  clientId: string;
  clientSecretCiphertext?: Buffer;
  scopes: string[];
  claims: ClaimMapping;
}

export class TenantIdpRepository {
  constructor(private readonly dataSource: DataSource) {}

  tenantNamed(name: string, manager = this.dataSource.manager): Promise<TenantEntity | null> {
    return manager.findOneBy(TenantEntity, { name });
  }

  tenantOf(key: TenantKey, manager = this.dataSource.manager): Promise<TenantEntity | null> {
    return 'tenantId' in key
      ? manager.findOneBy(TenantEntity, { id: key.tenantId })
      : this.tenantNamed(key.name, manager);
  }

  async find(tenant: TenantEntity, manager = this.dataSource.manager): Promise<StoredIdp | null> {
    const provider = await manager.findOneBy(TenantIdpEntity, { tenantId: tenant.id });
    if (!provider) return null;
    const domains = await manager.find(TenantIdpDomainEntity, {
      where: { tenantId: tenant.id },
      order: { domain: 'ASC' },
    });
    return { tenant, provider, domains: domains.map((row) => row.domain) };
  }

  async findByTenantId(tenantId: string): Promise<StoredIdp | null> {
    const tenant = await this.dataSource.manager.findOneBy(TenantEntity, { id: tenantId });
    return tenant ? this.find(tenant) : null;
  }

  async tenantOfDomain(domain: string): Promise<TenantEntity | null> {
    const row = await this.dataSource.manager.findOne(TenantIdpDomainEntity, {
      where: { domain },
      relations: { provider: { tenant: true } },
    });
    return row?.provider?.tenant ?? null;
  }

  /** One transaction; a domain of another tenant is refused by the domain's primary key, not a prior read. */
  async save(
    tenantId: string,
    row: IdpRow,
    domains: readonly string[],
    at: Date,
    outer?: EntityManager,
  ): Promise<void> {
    const work = async (manager: EntityManager) => {
      if (row.clientSecretCiphertext) {
        await manager
          .createQueryBuilder()
          .insert()
          .into(TenantIdpEntity)
          .values({ tenantId, ...row, createdAt: at, updatedAt: at })
          .orUpdate(
            ['issuer', 'client_id', 'client_secret_ciphertext', 'scopes', 'claims', 'updated_at'],
            ['tenant_id'],
          )
          .execute();
      } else {
        // No new secret: the stored one is kept, so the provider must exist.
        const { issuer, clientId, scopes, claims } = row;
        const updated = await manager.update(
          TenantIdpEntity,
          { tenantId },
          { issuer, clientId, scopes, claims, updatedAt: at },
        );
        if (updated.affected !== 1)
          throw new IdpError('invalid_client_secret', 'a client secret is required for a new provider');
      }
      await manager.delete(TenantIdpDomainEntity, { tenantId });
      if (domains.length === 0) return;
      const inserted = await manager
        .createQueryBuilder()
        .insert()
        .into(TenantIdpDomainEntity)
        .values(domains.map((domain) => ({ domain, tenantId })))
        .orIgnore()
        .returning('domain')
        .execute();
      if ((inserted.raw as unknown[]).length !== domains.length) {
        const taken = await manager.findBy(TenantIdpDomainEntity, { domain: In([...domains]) });
        const other = taken.find((entry) => entry.tenantId !== tenantId)?.domain ?? domains[0];
        throw new IdpError('domain_taken', `the e-mail domain ${other} belongs to another tenant`);
      }
    };
    await (outer ? work(outer) : this.dataSource.transaction(work));
  }

  /** False when the tenant had no provider. Its domains go with it (foreign key). */
  async remove(tenantId: string): Promise<boolean> {
    const result = await this.dataSource.manager.delete(TenantIdpEntity, { tenantId });
    return result.affected === 1;
  }

  /** Master-data labels for upstream codes: the tenant's own and platform-wide entries, never another tenant's. */
  async masterLabels(tenantId: string, organization: string | undefined, job: string | undefined) {
    const manager = this.dataSource.manager;
    const seen = (code: string) => [
      { code, tenantId },
      { code, tenantId: IsNull() },
    ];
    const [org, jobType] = await Promise.all([
      organization ? manager.findOneBy(OrganizationEntity, seen(organization)) : null,
      job ? manager.findOneBy(JobTypeEntity, seen(job)) : null,
    ]);
    return { organization: org?.label, job: jobType?.label };
  }
}
