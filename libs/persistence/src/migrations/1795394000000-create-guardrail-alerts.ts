import type { MigrationInterface, QueryRunner } from 'typeorm';

// Generated from the audit lib's GuardrailAlertEntity with TypeORM's schema builder; never edited after
// landing. The day-count triggers are written by hand: besides the log's own count ('guardrail'), each
// tenant's rows are counted under 'guardrail:<tenantId>' so a tenant's page total is a sum of days too.
export class CreateGuardrailAlerts1795394000000 implements MigrationInterface {
  name = 'CreateGuardrailAlerts1795394000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "audit"."guardrail_alerts" ("id" uuid NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "service" text NOT NULL, "stage" text NOT NULL, "rule" text NOT NULL, "rule_type" text NOT NULL, "severity" text NOT NULL, "action" text NOT NULL, "match_count" integer NOT NULL, "excerpt" text, "conversation_id" text, "message_id" text, "user_id" text, "tenant_id" text, "caller" text, CONSTRAINT "guardrail_alerts_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "guardrail_alerts_created_at_idx" ON "audit"."guardrail_alerts" ("created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "guardrail_alerts_tenant_idx" ON "audit"."guardrail_alerts" ("tenant_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "guardrail_alerts_conversation_idx" ON "audit"."guardrail_alerts" ("conversation_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "guardrail_alerts_rule_idx" ON "audit"."guardrail_alerts" ("rule", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "guardrail_alerts_severity_idx" ON "audit"."guardrail_alerts" ("severity", "created_at", "id") `,
    );
    await queryRunner.query(`CREATE FUNCTION "audit"."guardrail_alert_day_counts_add"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO "audit"."log_day_counts" ("log", "day", "row_count")
          SELECT k."log", ("created_at" AT TIME ZONE 'UTC')::date, count(*)
            FROM "changed" CROSS JOIN LATERAL (VALUES ('guardrail'), ('guardrail:' || "tenant_id")) AS k("log")
            WHERE k."log" IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2
          ON CONFLICT ("log", "day") DO UPDATE SET "row_count" = "log_day_counts"."row_count" + EXCLUDED."row_count";
        RETURN NULL;
      END $$`);
    await queryRunner.query(`CREATE FUNCTION "audit"."guardrail_alert_day_counts_remove"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE "audit"."log_day_counts" AS c SET "row_count" = c."row_count" - d."rows"
          FROM (SELECT k."log", ("created_at" AT TIME ZONE 'UTC')::date AS "day", count(*) AS "rows"
                  FROM "changed" CROSS JOIN LATERAL (VALUES ('guardrail'), ('guardrail:' || "tenant_id")) AS k("log")
                  WHERE k."log" IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2) AS d
          WHERE c."log" = d."log" AND c."day" = d."day";
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER "guardrail_alerts_counted_insert" AFTER INSERT ON "audit"."guardrail_alerts" REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "audit"."guardrail_alert_day_counts_add"()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "guardrail_alerts_counted_delete" AFTER DELETE ON "audit"."guardrail_alerts" REFERENCING OLD TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "audit"."guardrail_alert_day_counts_remove"()`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "audit"."guardrail_alerts"`);
    await queryRunner.query(`DROP FUNCTION "audit"."guardrail_alert_day_counts_remove"()`);
    await queryRunner.query(`DROP FUNCTION "audit"."guardrail_alert_day_counts_add"()`);
    await queryRunner.query(
      `DELETE FROM "audit"."log_day_counts" WHERE "log" = 'guardrail' OR "log" LIKE 'guardrail:%'`,
    );
  }
}
