import { type NumberedPageParams } from '@fed/contracts';
import { randomUUID } from 'node:crypto';
import { type TenantType } from './tenant.entity';
import { DEFAULT_TENANT, type TenantKey, type TenantRepository, type TenantRow } from './tenant.repository';
import { checkTenantEndpoint, checkTenantName, checkTenantType } from './tenant.rules';
import { TenantsError } from './tenants.errors';

export type { TenantKey, TenantRow } from './tenant.repository';

export interface NewTenant {
  name: string;
  type: TenantType;
  endpoint: string;
  /** Default true. */
  enabled?: boolean;
}

/** The name and type are fixed: realm files, `idp_hint` and platformctl name a tenant by its name, tokens carry its type. */
export interface TenantChanges {
  endpoint?: string;
  /** false: its users and clients get no tokens (code exchange, refresh, client credentials). */
  enabled?: boolean;
}

const describe = (key: TenantKey) =>
  'tenantId' in key ? `no tenant ${JSON.stringify(key.tenantId)}` : `no tenant named ${JSON.stringify(key.name)}`;

/** The tenants of the realm, the same for `platformctl tenants` and `/api/v1/admin/tenants`. */
export class TenantsService {
  constructor(
    private readonly repository: TenantRepository,
    private readonly now: () => Date = () => new Date(),
  ) {}

  list(search: string | undefined, page: NumberedPageParams): Promise<{ tenants: TenantRow[]; total: number }> {
    return this.repository.page(search, page);
  }

  async get(key: TenantKey): Promise<TenantRow> {
    const tenant = await this.repository.find(key);
    if (!tenant) throw new TenantsError('tenant_not_found', describe(key));
    return tenant;
  }

  async create(input: NewTenant): Promise<TenantRow> {
    const name = checkTenantName(input.name);
    if (name === DEFAULT_TENANT) {
      throw new TenantsError(
        'default_tenant',
        `"${DEFAULT_TENANT}" is the tenant of users and clients created without one; it is made on first use`,
      );
    }
    const tenant = {
      id: randomUUID(),
      name,
      type: checkTenantType(input.type),
      endpoint: checkTenantEndpoint(input.endpoint),
      enabled: input.enabled ?? true,
      createdAt: this.now(),
    };
    if (!(await this.repository.insert(tenant))) {
      throw new TenantsError('name_taken', `a tenant named ${JSON.stringify(name)} exists`);
    }
    return this.get({ tenantId: tenant.id });
  }

  async update(key: TenantKey, changes: TenantChanges): Promise<TenantRow> {
    // null is absent, as the request DTO's @IsOptional() takes it.
    const values: TenantChanges = {};
    if (changes.endpoint != null) values.endpoint = checkTenantEndpoint(changes.endpoint);
    if (changes.enabled != null) values.enabled = changes.enabled === true;
    if (Object.keys(values).length === 0) {
      throw new TenantsError('nothing_to_change', 'give endpoint or enabled (a tenant is never renamed)');
    }
    const tenant = await this.get(key);
    if (!(await this.repository.update(tenant.id, values))) throw new TenantsError('tenant_not_found', describe(key));
    return this.get({ tenantId: tenant.id });
  }

  /** Refused while users or clients belong to it (disable it instead); its provider and master data go with it. */
  async delete(key: TenantKey): Promise<TenantRow> {
    const tenant = await this.get(key);
    if (tenant.name === DEFAULT_TENANT) {
      throw new TenantsError(
        'default_tenant',
        `"${DEFAULT_TENANT}" is the tenant of users and clients created without one`,
      );
    }
    const outcome = await this.repository.delete(tenant.id);
    if (outcome === 'not_found') throw new TenantsError('tenant_not_found', describe(key));
    if (outcome === 'in_use') {
      const now = (await this.repository.find({ tenantId: tenant.id })) ?? tenant;
      throw new TenantsError(
        'in_use',
        `tenant ${tenant.name} has ${now.users} user(s) and ${now.clients} client(s): delete or move them first, or disable the tenant`,
      );
    }
    return tenant;
  }
}
