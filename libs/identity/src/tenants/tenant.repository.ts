import { type NumberedPageParams } from '@fed/contracts';
import { randomUUID } from 'node:crypto';
import { type DataSource, type EntityManager } from 'typeorm';
import { TenantEntity, type TenantType } from './tenant.entity';

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

/** A tenant with what an operator wants to know before changing it. */
export interface TenantRow {
  id: string;
  name: string;
  type: TenantType;
  endpoint: string;
  enabled: boolean;
  createdAt: Date;
  users: number;
  clients: number;
  identityProvider: boolean;
}

export type TenantKey = { tenantId: string } | { name: string };

// Counted per row through the tenant_id indexes of users and clients: a page of 25 is 50 index scans.
const TENANT_COLUMNS = `t."id", t."name", t."type", t."endpoint", t."enabled", t."created_at" AS "createdAt",
  (SELECT count(*)::int FROM "identity"."users" u WHERE u."tenant_id" = t."id") AS "users",
  (SELECT count(*)::int FROM "identity"."clients" c WHERE c."tenant_id" = t."id") AS "clients",
  EXISTS (SELECT 1 FROM "identity"."tenant_identity_providers" p WHERE p."tenant_id" = t."id") AS "identityProvider"`;

// LIKE's wildcards and its escape character, matched literally.
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

// A row still refers to the tenant: foreign_key_violation, or restrict_violation where the reference is RESTRICT.
const STILL_REFERENCED = new Set(['23503', '23001']);

export class TenantRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** By name (unique); `search` is a substring of the name or the endpoint, any letter case. */
  async page(search: string | undefined, page: NumberedPageParams): Promise<{ tenants: TenantRow[]; total: number }> {
    const pattern = search === undefined ? null : `%${likeLiteral(search)}%`;
    const where = `WHERE ($1::text IS NULL OR t."name" ILIKE $1 ESCAPE '\\' OR t."endpoint" ILIKE $1 ESCAPE '\\')`;
    const [tenants, counted] = await Promise.all([
      this.dataSource.query(
        `SELECT ${TENANT_COLUMNS} FROM "identity"."tenants" t ${where} ORDER BY t."name", t."id" LIMIT $2 OFFSET $3`,
        [pattern, page.limit, page.offset],
      ) as Promise<TenantRow[]>,
      this.dataSource.query(`SELECT count(*)::int AS "total" FROM "identity"."tenants" t ${where}`, [
        pattern,
      ]) as Promise<{ total: number }[]>,
    ]);
    return { tenants, total: counted[0]?.total ?? 0 };
  }

  async find(key: TenantKey): Promise<TenantRow | null> {
    const [column, value] = 'tenantId' in key ? ['id', key.tenantId] : ['name', key.name];
    const rows = (await this.dataSource.query(
      `SELECT ${TENANT_COLUMNS} FROM "identity"."tenants" t WHERE t."${column}" = $1`,
      [value],
    )) as TenantRow[];
    return rows[0] ?? null;
  }

  /** False when the name is taken: the unique index decides, not a read before. */
  async insert(tenant: Omit<TenantRow, 'users' | 'clients' | 'identityProvider'>): Promise<boolean> {
    const inserted = await this.dataSource.manager
      .createQueryBuilder()
      .insert()
      .into(TenantEntity)
      .values(tenant)
      .orIgnore()
      .returning('id')
      .execute();
    return (inserted.raw as unknown[]).length === 1;
  }

  /** False when there is no such tenant. */
  async update(tenantId: string, values: { endpoint?: string; enabled?: boolean }): Promise<boolean> {
    const result = await this.dataSource.manager.update(TenantEntity, { id: tenantId }, values);
    return result.affected === 1;
  }

  /** Its identity provider and master data go with it; its users and clients hold it (RESTRICT foreign keys). */
  async delete(tenantId: string): Promise<'deleted' | 'not_found' | 'in_use'> {
    try {
      const result = await this.dataSource.manager.delete(TenantEntity, { id: tenantId });
      return result.affected === 1 ? 'deleted' : 'not_found';
    } catch (error) {
      if (STILL_REFERENCED.has((error as { driverError?: { code?: string } }).driverError?.code ?? '')) return 'in_use';
      throw error;
    }
  }
}
