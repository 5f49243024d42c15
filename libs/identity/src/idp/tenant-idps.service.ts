import { type EntityManager } from 'typeorm';
import { type TenantEntity } from '../tenants/tenant.entity';
import { type TenantKey } from '../tenants/tenant.repository';
import { type ClaimMapping } from './claim-mapping';
import { IdpError } from './idp.errors';
import { type SealedBox } from './sealed-box';
import { type StoredIdp, type TenantIdpRepository } from './tenant-idp.repository';
import { type TenantIdpSettings, validateIdpSettings } from './tenant-idp.rules';

/** A tenant's provider as shown to an operator: never the secret. */
export interface TenantIdpView {
  tenantId: string;
  tenant: string;
  /** A disabled tenant's sign-ins are refused. */
  tenantEnabled: boolean;
  issuer: string;
  clientId: string;
  scopes: string[];
  domains: string[];
  claims: ClaimMapping;
  createdAt: Date;
  updatedAt: Date;
}

export interface UpstreamSettings {
  tenant: TenantEntity;
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: string[];
  claims: ClaimMapping;
  /** Changes with every update: the key of the cached upstream configuration. */
  version: number;
}

export const SECRET_PURPOSE = 'tenant-idp-secrets';
const secretContext = (tenantId: string) => `tenant-idp-client-secret:${tenantId}`;
const noTenant = (key: TenantKey) =>
  'tenantId' in key ? `no tenant ${JSON.stringify(key.tenantId)}` : `no tenant named ${JSON.stringify(key.name)}`;

/** A tenant's own provider, the same for `platformctl tenants idp`, realm files and the admin API. */
export class TenantIdpsService {
  constructor(
    private readonly repository: TenantIdpRepository,
    /** Absent where KEY_ENCRYPTION_KEY is not known: setting a new secret is then refused. */
    private readonly secrets: SealedBox | undefined,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Without `clientSecret` the stored one is kept; without `domains` the stored list is. */
  async set(key: TenantKey, settings: TenantIdpSettings): Promise<TenantIdpView> {
    const tenant = await this.enterpriseTenant(key);
    await this.save(undefined, tenant, settings);
    return this.show({ tenantId: tenant.id });
  }

  async setWithin(manager: EntityManager | undefined, tenantName: string, settings: TenantIdpSettings): Promise<void> {
    await this.save(manager, await this.enterpriseTenant({ name: tenantName }, manager), settings);
  }

  async show(key: TenantKey): Promise<TenantIdpView> {
    return viewOf(await this.stored(key));
  }

  async remove(key: TenantKey): Promise<TenantIdpView> {
    const stored = await this.stored(key);
    if (!(await this.repository.remove(stored.tenant.id))) {
      throw new IdpError('idp_not_found', `tenant ${stored.tenant.name} has no identity provider`);
    }
    return viewOf(stored);
  }

  async viewOfTenant(tenant: TenantEntity): Promise<TenantIdpView | null> {
    const stored = await this.repository.find(tenant);
    return stored ? viewOf(stored) : null;
  }

  /** UnsealError when the secret does not open. */
  async upstreamOf(tenantId: string): Promise<UpstreamSettings | null> {
    const stored = await this.repository.findByTenantId(tenantId);
    if (!stored) return null;
    const { provider } = stored;
    if (!this.secrets)
      throw new IdpError('no_encryption_key', 'KEY_ENCRYPTION_KEY is required to open a client secret');
    return {
      tenant: stored.tenant,
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: this.secrets.open(provider.clientSecretCiphertext, secretContext(tenantId)),
      scopes: provider.scopes,
      claims: provider.claims,
      version: provider.updatedAt.getTime(),
    };
  }

  private async save(manager: EntityManager | undefined, tenant: TenantEntity, settings: TenantIdpSettings) {
    const valid = validateIdpSettings(settings);
    const existing = await this.repository.find(tenant, manager);
    if (!existing && valid.clientSecret === undefined) {
      throw new IdpError(
        'invalid_client_secret',
        `tenant ${tenant.name} has no identity provider yet: a client secret is required`,
      );
    }
    let clientSecretCiphertext: Buffer | undefined;
    if (valid.clientSecret !== undefined) {
      if (!this.secrets)
        throw new IdpError('no_encryption_key', 'KEY_ENCRYPTION_KEY is required to store a client secret');
      clientSecretCiphertext = this.secrets.seal(valid.clientSecret, secretContext(tenant.id));
    }
    const { issuer, clientId, scopes, claims } = valid;
    // Omitted domains keep the stored ones, so a `set` that changes the issuer does not silently end
    // home-realm discovery; an empty list removes them.
    const domains = settings.domains === undefined && existing ? existing.domains : valid.domains;
    await this.repository.save(
      tenant.id,
      { issuer, clientId, scopes, claims, clientSecretCiphertext },
      domains,
      this.now(),
      manager,
    );
  }

  private async stored(key: TenantKey): Promise<StoredIdp> {
    const tenant = await this.repository.tenantOf(key);
    if (!tenant) throw new IdpError('tenant_not_found', noTenant(key));
    const stored = await this.repository.find(tenant);
    if (!stored) throw new IdpError('idp_not_found', `tenant ${tenant.name} has no identity provider`);
    return stored;
  }

  private async enterpriseTenant(key: TenantKey, manager?: EntityManager): Promise<TenantEntity> {
    const tenant = await this.repository.tenantOf(key, manager);
    if (!tenant) throw new IdpError('tenant_not_found', noTenant(key));
    if (tenant.type !== 'enterprise') {
      throw new IdpError(
        'not_enterprise',
        `tenant ${tenant.name} is a ${tenant.type} tenant; only enterprise tenants sign in with their own provider`,
      );
    }
    return tenant;
  }
}

function viewOf({ tenant, provider, domains }: StoredIdp): TenantIdpView {
  return {
    tenantId: tenant.id,
    tenant: tenant.name,
    tenantEnabled: tenant.enabled,
    issuer: provider.issuer,
    clientId: provider.clientId,
    scopes: provider.scopes,
    domains,
    claims: provider.claims,
    createdAt: provider.createdAt,
    updatedAt: provider.updatedAt,
  };
}
