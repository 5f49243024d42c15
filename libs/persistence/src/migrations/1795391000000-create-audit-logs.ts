import type { MigrationInterface, QueryRunner } from 'typeorm';

// Tables generated from the audit lib's AuditLogEntity and LogDayCountEntity with TypeORM's schema
// builder; never edited after landing. The gateway log's (created_at, id) index already serves its
// pages newest first (scanned backwards).
export class CreateAuditLogs1795391000000 implements MigrationInterface {
  name = 'CreateAuditLogs1795391000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "audit"."audit_logs" ("id" uuid NOT NULL, "resource" text NOT NULL, "action" text NOT NULL, "meta" jsonb, "user_id" text NOT NULL, "user_email" text, "ip_address" text, "user_agent" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "audit_logs_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "audit_logs_created_at_idx" ON "audit"."audit_logs"  ("created_at", "id") `);
    await queryRunner.query(
      `CREATE TABLE "audit"."log_day_counts" ("log" text NOT NULL, "day" date NOT NULL, "row_count" bigint NOT NULL DEFAULT '0', CONSTRAINT "log_day_counts_pkey" PRIMARY KEY ("log", "day"))`,
    );
    // Written by hand (TypeORM's schema builder knows no triggers): the day counts follow every
    // insert and delete of the log tables in the statement that made them, once per statement (a
    // batch of rows is one update per day it touches), days in one order so writers never deadlock.
    await queryRunner.query(`CREATE FUNCTION "audit"."log_day_counts_add"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO "audit"."log_day_counts" ("log", "day", "row_count")
          SELECT TG_ARGV[0], ("created_at" AT TIME ZONE 'UTC')::date, count(*) FROM "changed" GROUP BY 2 ORDER BY 2
          ON CONFLICT ("log", "day") DO UPDATE SET "row_count" = "log_day_counts"."row_count" + EXCLUDED."row_count";
        RETURN NULL;
      END $$`);
    await queryRunner.query(`CREATE FUNCTION "audit"."log_day_counts_remove"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE "audit"."log_day_counts" AS c SET "row_count" = c."row_count" - d."rows"
          FROM (SELECT ("created_at" AT TIME ZONE 'UTC')::date AS "day", count(*) AS "rows"
                FROM "changed" GROUP BY 1 ORDER BY 1) AS d
          WHERE c."log" = TG_ARGV[0] AND c."day" = d."day";
        RETURN NULL;
      END $$`);
    for (const [table, log] of [
      ['audit_logs', 'audit'],
      ['llm_gateway_logs', 'gateway'],
    ]) {
      await queryRunner.query(
        `CREATE TRIGGER "${table}_counted_insert" AFTER INSERT ON "audit"."${table}" REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "audit"."log_day_counts_add"('${log}')`,
      );
      await queryRunner.query(
        `CREATE TRIGGER "${table}_counted_delete" AFTER DELETE ON "audit"."${table}" REFERENCING OLD TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "audit"."log_day_counts_remove"('${log}')`,
      );
    }
    await queryRunner.query(
      `INSERT INTO "audit"."log_day_counts" ("log", "day", "row_count") SELECT 'gateway', ("created_at" AT TIME ZONE 'UTC')::date, count(*) FROM "audit"."llm_gateway_logs" GROUP BY 2`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "llm_gateway_logs_counted_delete" ON "audit"."llm_gateway_logs"`);
    await queryRunner.query(`DROP TRIGGER "llm_gateway_logs_counted_insert" ON "audit"."llm_gateway_logs"`);
    await queryRunner.query(`DROP TABLE "audit"."audit_logs"`);
    await queryRunner.query(`DROP FUNCTION "audit"."log_day_counts_remove"()`);
    await queryRunner.query(`DROP FUNCTION "audit"."log_day_counts_add"()`);
    await queryRunner.query(`DROP TABLE "audit"."log_day_counts"`);
  }
}
