import { type EntityManager } from 'typeorm';
import { type TenantEntity } from '../tenants/tenant.entity';
import { type ClaimMapping } from './claim-mapping';
import { IdpError } from './idp.errors';
import { type SealedBox } from './sealed-box';
import { type StoredIdp, type TenantIdpRepository } from './tenant-idp.repository';
import { type TenantIdpSettings, validateIdpSettings } from './tenant-idp.rules';

/** A tenant's provider as shown to an operator: never the secret. */
export interface TenantIdpView {
  tenant: string;
  issuer: string;
  clientId: string;
  scopes: string[];
  domains: string[];
  claims: ClaimMapping;
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

export class TenantIdpsService {
  constructor(
    private readonly repository: TenantIdpRepository,
    /** Absent where KEY_ENCRYPTION_KEY is not known: setting a new secret is then refused. */
    private readonly secrets: SealedBox | undefined,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async set(tenantName: string, settings: TenantIdpSettings): Promise<TenantIdpView> {
    await this.setWithin(undefined, tenantName, settings);
    return this.show(tenantName);
  }

  async setWithin(manager: EntityManager | undefined, tenantName: string, settings: TenantIdpSettings): Promise<void> {
    const valid = validateIdpSettings(settings);
    const tenant = await this.enterpriseTenant(tenantName, manager);
    const existing = await this.repository.find(tenant, manager);
    if (!existing && valid.clientSecret === undefined) {
      throw new IdpError(
        'invalid_client_secret',
        `tenant ${tenantName} has no identity provider yet: a client secret is required`,
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

  async show(tenantName: string): Promise<TenantIdpView> {
    return viewOf(await this.stored(tenantName));
  }

  async remove(tenantName: string): Promise<void> {
    const stored = await this.stored(tenantName);
    if (!(await this.repository.remove(stored.tenant.id))) {
      throw new IdpError('idp_not_found', `tenant ${tenantName} has no identity provider`);
    }
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

  private async stored(tenantName: string): Promise<StoredIdp> {
    const tenant = await this.repository.tenantNamed(tenantName);
    if (!tenant) throw new IdpError('tenant_not_found', `no tenant named ${JSON.stringify(tenantName)}`);
    const stored = await this.repository.find(tenant);
    if (!stored) throw new IdpError('idp_not_found', `tenant ${tenantName} has no identity provider`);
    return stored;
  }

  private async enterpriseTenant(name: string, manager?: EntityManager): Promise<TenantEntity> {
    const tenant = await this.repository.tenantNamed(name, manager);
    if (!tenant) throw new IdpError('tenant_not_found', `no tenant named ${JSON.stringify(name)}`);
    if (tenant.type !== 'enterprise') {
      throw new IdpError(
        'not_enterprise',
        `tenant ${name} is a ${tenant.type} tenant; only enterprise tenants sign in with their own provider`,
      );
    }
    return tenant;
  }
}

function viewOf({ tenant, provider, domains }: StoredIdp): TenantIdpView {
  return {
    tenant: tenant.name,
    issuer: provider.issuer,
    clientId: provider.clientId,
    scopes: provider.scopes,
    domains,
    claims: provider.claims,
    updatedAt: provider.updatedAt,
  };
}
