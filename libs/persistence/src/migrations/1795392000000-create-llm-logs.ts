import type { MigrationInterface, QueryRunner } from 'typeorm';

// Generated from the audit lib's LlmLogEntity with TypeORM's schema builder; never edited after
// landing. The day-count triggers (written by hand) are those of 1795391000000-create-audit-logs.
export class CreateLlmLogs1795392000000 implements MigrationInterface {
  name = 'CreateLlmLogs1795392000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "audit"."llm_logs" ("id" uuid NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "recorded_at" TIMESTAMP WITH TIME ZONE, "service" text, "operation" text, "duration_ms" integer, "conversation_id" text, "intent_type" text, "confidence_score" double precision, "tools_used" integer, "success" boolean, "agent_type" text, "agent_level" text, "task_complexity" text, "current_message" text, "context_summary" text, "suggested_approach" text, "conversation_goal" text, "final_content" text, "metadata" jsonb, CONSTRAINT "llm_logs_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "llm_logs_created_at_idx" ON "audit"."llm_logs"  ("created_at", "id") `);
    await queryRunner.query(
      `CREATE TRIGGER "llm_logs_counted_insert" AFTER INSERT ON "audit"."llm_logs" REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "audit"."log_day_counts_add"('llm')`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "llm_logs_counted_delete" AFTER DELETE ON "audit"."llm_logs" REFERENCING OLD TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "audit"."log_day_counts_remove"('llm')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "audit"."llm_logs"`);
    await queryRunner.query(`DELETE FROM "audit"."log_day_counts" WHERE "log" = 'llm'`);
  }
}
