import type { MigrationInterface, QueryRunner } from 'typeorm';

// Generated from the audit lib's AccessLogEntity with TypeORM's schema builder; never edited after
// landing. The day-count triggers (written by hand) are those of 1795391000000-create-audit-logs.
export class CreateAccessLogs1795393000000 implements MigrationInterface {
  name = 'CreateAccessLogs1795393000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "audit"."access_logs" ("id" uuid NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "service" text, "source_namespace" text, "source_ip" text, "method" text, "host" text, "path" text, "user_agent" text, "status_code" smallint, "duration_ms" double precision, "authz_result" text, "authz_reason" text, CONSTRAINT "access_logs_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "access_logs_created_at_idx" ON "audit"."access_logs"  ("created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE TRIGGER "access_logs_counted_insert" AFTER INSERT ON "audit"."access_logs" REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "audit"."log_day_counts_add"('access')`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "access_logs_counted_delete" AFTER DELETE ON "audit"."access_logs" REFERENCING OLD TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "audit"."log_day_counts_remove"('access')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "audit"."access_logs"`);
    await queryRunner.query(`DELETE FROM "audit"."log_day_counts" WHERE "log" = 'access'`);
  }
}
