import { DataSource } from 'typeorm';
import { type MasterDataKind } from './master-data.entity';

export interface MasterRecord {
  code: string;
  label: string;
  tenantId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A tenant's id (its own entries, plus platform-wide ones read-only), or null for the operator (platform-wide). */
export type MasterDataTenant = string | null;

const tables: Record<MasterDataKind, { table: string; userColumn: string; lock: number }> = {
  organization: { table: '"identity"."organizations"', userColumn: 'organization', lock: 1_795_404_001 },
  jobType: { table: '"identity"."job_types"', userColumn: 'job', lock: 1_795_404_002 },
};

const RETURNED = `"code", "label", "tenant_id", "created_at", "updated_at"`;

interface RecordRow {
  code: string;
  label: string;
  tenant_id: string | null;
  created_at: Date;
  updated_at: Date;
}

const toRecord = (row: RecordRow): MasterRecord => ({
  code: row.code,
  label: row.label,
  tenantId: row.tenant_id,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export type TakenBy = 'own' | 'platform' | 'tenant';

export type ChangeOutcome<T> = { kind: 'done'; value: T } | { kind: 'absent' } | { kind: 'platform' };

/** The caller's tenant is in every statement: another tenant's entries and users are never read, changed or counted. */
export class MasterDataRepository {
  constructor(private readonly dataSource: DataSource) {}

  async list(kind: MasterDataKind, tenant: MasterDataTenant): Promise<MasterRecord[]> {
    const rows = (await this.dataSource.query(
      `SELECT ${RETURNED} FROM ${tables[kind].table}
        WHERE "tenant_id" IS NULL OR "tenant_id" = $1::uuid
        ORDER BY "code"`,
      [tenant],
    )) as RecordRow[];
    return rows.map(toRecord);
  }

  /** The uniqueness check and insert run under a lock of the code, so two concurrent creations cannot both pass. */
  async insert(
    kind: MasterDataKind,
    tenant: MasterDataTenant,
    code: string,
    label: string,
    at: Date,
  ): Promise<MasterRecord | TakenBy> {
    const { table, lock } = tables[kind];
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock($1::integer, hashtext($2::text))`, [lock, code]);
      const taken = (await manager.query(
        `SELECT "tenant_id" FROM ${table}
          WHERE "code" = $1 AND ($2::uuid IS NULL OR "tenant_id" IS NULL OR "tenant_id" = $2::uuid)
          ORDER BY "tenant_id" NULLS FIRST LIMIT 1`,
        [code, tenant],
      )) as { tenant_id: string | null }[];
      const [holder] = taken;
      if (holder) return holder.tenant_id === tenant ? 'own' : holder.tenant_id === null ? 'platform' : 'tenant';
      const rows = (await manager.query(
        `INSERT INTO ${table} ("code", "tenant_id", "label", "created_at", "updated_at")
         VALUES ($1, $2, $3, $4, $4) RETURNING ${RETURNED}`,
        [code, tenant, label, at],
      )) as RecordRow[];
      return toRecord(rows[0] as RecordRow);
    });
  }

  /**
   * Relabels the entry and the `{id, label}` its users carry in one statement: a tenant's entry its own users,
   * a platform-wide one the users of every tenant without an entry of that code.
   */
  async updateLabel(
    kind: MasterDataKind,
    tenant: MasterDataTenant,
    code: string,
    label: string,
    at: Date,
  ): Promise<ChangeOutcome<MasterRecord>> {
    const { table, userColumn: column } = tables[kind];
    const rows = (await this.dataSource.query(
      `WITH "target" AS (
         SELECT "id", "tenant_id" FROM ${table} WHERE "code" = $1 AND ("tenant_id" IS NULL OR "tenant_id" = $4::uuid)
       ), "updated" AS (
         UPDATE ${table} SET "label" = $2, "updated_at" = $3
          WHERE "id" IN (SELECT "id" FROM "target" WHERE "tenant_id" IS NOT DISTINCT FROM $4::uuid)
          RETURNING *
       ), "relabelled" AS (
         UPDATE "identity"."users" SET "${column}" = jsonb_build_object('id', "updated"."code", 'label', "updated"."label")
           FROM "updated"
          WHERE "users"."${column}"->>'id' = "updated"."code"
            AND ("users"."tenant_id" = "updated"."tenant_id"
                 OR ("updated"."tenant_id" IS NULL AND NOT EXISTS (
                       SELECT 1 FROM ${table} AS "own"
                        WHERE "own"."code" = "updated"."code" AND "own"."tenant_id" = "users"."tenant_id")))
       )
       SELECT "target"."tenant_id" IS NULL AS "platform_wide", "updated"."code", "updated"."label",
              "updated"."tenant_id", "updated"."created_at", "updated"."updated_at"
         FROM "target" LEFT JOIN "updated" ON "updated"."id" = "target"."id"`,
      [code, label, at, tenant],
    )) as (RecordRow & { platform_wide: boolean; code: string | null })[];
    const [row] = rows;
    if (!row) return { kind: 'absent' };
    if (row.code === null) return { kind: 'platform' };
    return { kind: 'done', value: toRecord(row) };
  }

  /** Refused while a user carries the code (any user, for a platform-wide entry), decided under the row's lock. */
  async delete(
    kind: MasterDataKind,
    tenant: MasterDataTenant,
    code: string,
  ): Promise<ChangeOutcome<'deleted' | 'in_use'>> {
    const { table, userColumn: column } = tables[kind];
    const rows = (await this.dataSource.query(
      `WITH "target" AS (
         SELECT "entry"."id", "entry"."tenant_id",
                EXISTS (SELECT 1 FROM "identity"."users"
                         WHERE "users"."${column}"->>'id' = "entry"."code"
                           AND ("entry"."tenant_id" IS NULL OR "users"."tenant_id" = "entry"."tenant_id")) AS "in_use"
           FROM ${table} AS "entry"
          WHERE "entry"."code" = $1 AND ("entry"."tenant_id" IS NULL OR "entry"."tenant_id" = $2::uuid)
            FOR UPDATE OF "entry"
       ), "removed" AS (
         DELETE FROM ${table}
          WHERE "id" IN (SELECT "id" FROM "target" WHERE NOT "in_use" AND "tenant_id" IS NOT DISTINCT FROM $2::uuid)
          RETURNING "id"
       )
       SELECT "target"."tenant_id" IS NULL AS "platform_wide", "target"."in_use", ("removed"."id" IS NOT NULL) AS "deleted"
         FROM "target" LEFT JOIN "removed" ON "removed"."id" = "target"."id"`,
      [code, tenant],
    )) as { platform_wide: boolean; in_use: boolean; deleted: boolean }[];
    const [row] = rows;
    if (!row) return { kind: 'absent' };
    if (row.deleted) return { kind: 'done', value: 'deleted' };
    if (row.platform_wide && tenant !== null) return { kind: 'platform' };
    return { kind: 'done', value: 'in_use' };
  }
}
