import { randomUUID } from 'node:crypto';
import { type EntityManager } from 'typeorm';
import { TenantEntity } from './tenant.entity';

/** Users and clients without a tenant belong to this saas tenant, created on first use. */
export const DEFAULT_TENANT = 'default';

/** The default tenant is created atomically when missing; any other name must exist. */
export async function tenantNamed(
  manager: EntityManager,
  name: string,
  defaultEndpoint: string,
): Promise<TenantEntity | null> {
  if (name === DEFAULT_TENANT) {
    await manager
      .createQueryBuilder()
      .insert()
      .into(TenantEntity)
      .values({ id: randomUUID(), name, type: 'saas', endpoint: defaultEndpoint, enabled: true, createdAt: new Date() })
      .orIgnore()
      .execute();
  }
  return manager.findOneBy(TenantEntity, { name });
}
