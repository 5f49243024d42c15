import { DataSource } from 'typeorm';
import { JobTypeEntity, type MasterDataKind, type MasterRecordEntity, OrganizationEntity } from './master-data.entity';

export interface MasterRecord {
  code: string;
  label: string;
  createdAt: Date;
  updatedAt: Date;
}

// Each kind's table, and the user column that carries its `{id, label}`.
const tables: Record<MasterDataKind, { entity: typeof OrganizationEntity | typeof JobTypeEntity; userColumn: string }> =
  {
    organization: { entity: OrganizationEntity, userColumn: 'organization' },
    jobType: { entity: JobTypeEntity, userColumn: 'job' },
  };

const qualified = (kind: MasterDataKind) =>
  kind === 'organization' ? '"identity"."organizations"' : '"identity"."job_types"';

interface RecordRow {
  code: string;
  label: string;
  created_at: Date;
  updated_at: Date;
}

const toRecord = (row: RecordRow): MasterRecord => ({
  code: row.code,
  label: row.label,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** Organizations and job types; every change is one statement. */
export class MasterDataRepository {
  constructor(private readonly dataSource: DataSource) {}

  async list(kind: MasterDataKind): Promise<MasterRecord[]> {
    const rows: MasterRecordEntity[] = await this.dataSource.manager.find(tables[kind].entity, {
      order: { code: 'ASC' },
    });
    return rows.map(({ code, label, createdAt, updatedAt }) => ({ code, label, createdAt, updatedAt }));
  }

  async exists(kind: MasterDataKind, code: string): Promise<boolean> {
    return this.dataSource.manager.exists(tables[kind].entity, { where: { code } });
  }

  /** Null when the code is taken. */
  async insert(kind: MasterDataKind, code: string, label: string, at: Date): Promise<MasterRecord | null> {
    const rows = (await this.dataSource.query(
      `INSERT INTO ${qualified(kind)} ("code", "label", "created_at", "updated_at") VALUES ($1, $2, $3, $3)
       ON CONFLICT ("code") DO NOTHING RETURNING *`,
      [code, label, at],
    )) as RecordRow[];
    return rows[0] ? toRecord(rows[0]) : null;
  }

  /**
   * The new label, and the same label in the `{id, label}` every user of the code carries, in one
   * statement (the admin User object shows the stored label). Null when the code is unknown.
   */
  async updateLabel(kind: MasterDataKind, code: string, label: string, at: Date): Promise<MasterRecord | null> {
    const column = tables[kind].userColumn;
    const rows = (await this.dataSource.query(
      `WITH "updated" AS (
         UPDATE ${qualified(kind)} SET "label" = $2, "updated_at" = $3 WHERE "code" = $1 RETURNING *
       ), "relabelled" AS (
         UPDATE "identity"."users" SET "${column}" = jsonb_build_object('id', "updated"."code", 'label', "updated"."label")
           FROM "updated" WHERE "users"."${column}"->>'id' = "updated"."code"
       )
       SELECT * FROM "updated"`,
      [code, label, at],
    )) as RecordRow[];
    return rows[0] ? toRecord(rows[0]) : null;
  }

  /** Deleted, unknown, or refused because a user still carries the code (decided in the statement). */
  async delete(kind: MasterDataKind, code: string): Promise<'deleted' | 'absent' | 'in_use'> {
    const column = tables[kind].userColumn;
    const rows = (await this.dataSource.query(
      `WITH "target" AS (
         SELECT "code", EXISTS (SELECT 1 FROM "identity"."users" WHERE "${column}"->>'id' = $1) AS "in_use"
           FROM ${qualified(kind)} WHERE "code" = $1 FOR UPDATE
       ), "removed" AS (
         DELETE FROM ${qualified(kind)} WHERE "code" IN (SELECT "code" FROM "target" WHERE NOT "in_use") RETURNING "code"
       )
       SELECT "target"."in_use", ("removed"."code" IS NOT NULL) AS "deleted"
         FROM "target" LEFT JOIN "removed" ON TRUE`,
      [code],
    )) as { in_use: boolean; deleted: boolean }[];
    const [row] = rows;
    if (!row) return 'absent';
    return row.deleted ? 'deleted' : 'in_use';
  }
}
