import type { MigrationInterface, QueryRunner } from 'typeorm';

// Every log row names its tenant (issue 34): a `logs:read` token reads its own tenant's rows only. Adds
// `tenant_id` to the audit, LLM, gateway and access logs (guardrail alerts have it) and to the gateway's
// virtual keys; counts each tenant's rows per day under '<log>:<tenantId>' (as guardrail alerts are) so a
// tenant's page total stays a sum of days; gives existing rows the tenant they can be attributed to
// reliably (an audit row's actor, an LLM row's conversation, a gateway row's client), counting them in the
// statement that sets them; and indexes (tenant_id, created_at, id) where a tenant is set.
//
// ADD COLUMN of a nullable column is metadata only, but holds an ACCESS EXCLUSIVE lock on the table until
// the run's transaction ends, over the backfill and the index build. On large tables an operator adds the
// columns and builds the indexes first without a long lock (docs/admin.md, "Upgrading large log tables");
// this migration then skips them (an invalid index, left by a failed concurrent build, is built again) and
// its backfill takes row locks only. Never edited after landing.

const LOGS = [
  { table: 'audit_logs', log: 'audit' },
  { table: 'llm_logs', log: 'llm' },
  { table: 'llm_gateway_logs', log: 'gateway' },
  { table: 'access_logs', log: 'access' },
] as const;

const UUID_SHAPE = `'^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$'`;
// A text column as a uuid, or null when it is not one (CASE: the cast never sees another value).
const asUuid = (column: string) => `CASE WHEN ${column} ~ ${UUID_SHAPE} THEN ${column}::uuid END`;

/** Sets `tenant_id` of the rows `source` attributes (`"key"` matched by `match`), counting them per day. */
function backfill(table: string, log: string, source: string, match: string): string {
  return `WITH "attributed" AS (
      UPDATE "audit"."${table}" AS l SET "tenant_id" = s."tenant_id"
        FROM (${source}) AS s
        WHERE l."tenant_id" IS NULL AND ${match} AND s."tenant_id" IS NOT NULL
        RETURNING l."tenant_id", l."created_at"
    )
    INSERT INTO "audit"."log_day_counts" ("log", "day", "row_count")
      SELECT '${log}:' || "tenant_id", ("created_at" AT TIME ZONE 'UTC')::date, count(*) FROM "attributed"
        GROUP BY 1, 2 ORDER BY 1, 2
      ON CONFLICT ("log", "day") DO UPDATE SET "row_count" = "log_day_counts"."row_count" + EXCLUDED."row_count"`;
}

export class AddLogTenants1795403000000 implements MigrationInterface {
  name = 'AddLogTenants1795403000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Checked first: ADD COLUMN IF NOT EXISTS would still take its lock.
    const addColumn = async (schema: string, table: string, type: string) => {
      const present = (await queryRunner.query(
        `SELECT 1 FROM pg_attribute WHERE attrelid = $1::regclass AND attname = 'tenant_id' AND NOT attisdropped`,
        [`"${schema}"."${table}"`],
      )) as unknown[];
      if (present.length === 0) {
        await queryRunner.query(`ALTER TABLE "${schema}"."${table}" ADD COLUMN IF NOT EXISTS "tenant_id" ${type}`);
      }
    };
    for (const { table } of LOGS) await addColumn('audit', table, 'text');
    await addColumn('gateway', 'api_keys', 'uuid');

    // Every row counted under its log and, when it has a tenant, under '<log>:<tenantId>' (one statement,
    // days and keys in one order so concurrent writers never deadlock).
    await queryRunner.query(`CREATE OR REPLACE FUNCTION "audit"."log_day_counts_add"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO "audit"."log_day_counts" ("log", "day", "row_count")
          SELECT k."log", ("created_at" AT TIME ZONE 'UTC')::date, count(*)
            FROM "changed" CROSS JOIN LATERAL (VALUES (TG_ARGV[0]), (TG_ARGV[0] || ':' || "tenant_id")) AS k("log")
            WHERE k."log" IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2
          ON CONFLICT ("log", "day") DO UPDATE SET "row_count" = "log_day_counts"."row_count" + EXCLUDED."row_count";
        RETURN NULL;
      END $$`);
    await queryRunner.query(`CREATE OR REPLACE FUNCTION "audit"."log_day_counts_remove"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE "audit"."log_day_counts" AS c SET "row_count" = c."row_count" - d."rows"
          FROM (SELECT k."log", ("created_at" AT TIME ZONE 'UTC')::date AS "day", count(*) AS "rows"
                  FROM "changed" CROSS JOIN LATERAL (VALUES (TG_ARGV[0]), (TG_ARGV[0] || ':' || "tenant_id")) AS k("log")
                  WHERE k."log" IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2) AS d
          WHERE c."log" = d."log" AND c."day" = d."day";
        RETURN NULL;
      END $$`);

    // Audit rows: the actor is a user (identity.users) or a client's service account.
    await queryRunner.query(
      backfill(
        'audit_logs',
        'audit',
        `SELECT u."id" AS "subject", u."tenant_id"::text AS "tenant_id" FROM "identity"."users" u
         UNION ALL SELECT c."service_account_id", c."tenant_id"::text FROM "identity"."clients" c`,
        `s."subject" = ${asUuid('l."user_id"')}`,
      ),
    );
    // LLM rows: the tenant of their conversation (active or archived); a deleted one's rows stay unattributed.
    await queryRunner.query(
      backfill(
        'llm_logs',
        'llm',
        `SELECT "id", "tenant_id" FROM "conversations"."conversations"
         UNION ALL SELECT "id", "tenant_id" FROM "conversations"."archived_conversations"`,
        `s."id" = ${asUuid('l."conversation_id"')}`,
      ),
    );
    // Gateway rows of a client-credentials token name the client (`metadata.principal` is 'client:<clientId>');
    // the virtual keys had no tenant before this migration, and access rows record no caller: those stay null.
    await queryRunner.query(
      backfill(
        'llm_gateway_logs',
        'gateway',
        `SELECT 'client:' || "client_id" AS "principal", "tenant_id"::text AS "tenant_id" FROM "identity"."clients"`,
        `l."metadata"->>'principal' = s."principal"`,
      ),
    );

    for (const { table } of LOGS) {
      const index = `${table}_tenant_idx`;
      const [row] = (await queryRunner.query(
        `SELECT indisvalid AS "valid" FROM pg_index WHERE indexrelid = to_regclass($1)`,
        [`audit.${index}`],
      )) as { valid: boolean }[];
      if (row?.valid) continue;
      if (row) await queryRunner.query(`DROP INDEX "audit"."${index}"`);
      await queryRunner.query(
        `CREATE INDEX "${index}" ON "audit"."${table}" ("tenant_id", "created_at", "id") WHERE "tenant_id" IS NOT NULL`,
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE OR REPLACE FUNCTION "audit"."log_day_counts_add"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO "audit"."log_day_counts" ("log", "day", "row_count")
          SELECT TG_ARGV[0], ("created_at" AT TIME ZONE 'UTC')::date, count(*) FROM "changed" GROUP BY 2 ORDER BY 2
          ON CONFLICT ("log", "day") DO UPDATE SET "row_count" = "log_day_counts"."row_count" + EXCLUDED."row_count";
        RETURN NULL;
      END $$`);
    await queryRunner.query(`CREATE OR REPLACE FUNCTION "audit"."log_day_counts_remove"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE "audit"."log_day_counts" AS c SET "row_count" = c."row_count" - d."rows"
          FROM (SELECT ("created_at" AT TIME ZONE 'UTC')::date AS "day", count(*) AS "rows"
                FROM "changed" GROUP BY 1 ORDER BY 1) AS d
          WHERE c."log" = TG_ARGV[0] AND c."day" = d."day";
        RETURN NULL;
      END $$`);
    for (const { table, log } of LOGS) {
      await queryRunner.query(`DROP INDEX "audit"."${table}_tenant_idx"`);
      await queryRunner.query(`ALTER TABLE "audit"."${table}" DROP COLUMN "tenant_id"`);
      await queryRunner.query(`DELETE FROM "audit"."log_day_counts" WHERE "log" LIKE $1`, [`${log}:%`]);
    }
    await queryRunner.query(`ALTER TABLE "gateway"."api_keys" DROP COLUMN "tenant_id"`);
  }
}
