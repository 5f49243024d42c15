import type { MigrationInterface, QueryRunner } from 'typeorm';

// Generated from the gateway's API-key entity and audit's gateway-log entity with TypeORM's schema
// builder; never edited after landing.
export class CreateGatewayKeysAndLogs1795340000000 implements MigrationInterface {
  name = 'CreateGatewayKeysAndLogs1795340000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "audit"."llm_gateway_logs" ("id" uuid NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "virtual_key_id" uuid, "client_session_id" text, "client_agent_id" text, "api_flavor" text, "model_name" text, "resolved_model" text, "provider" text, "deployment" text, "tier" text, "stream" boolean, "success" boolean, "http_status" integer, "error_type" text, "error_code" text, "usage_status" text, "latency_ms" integer, "input_tokens" integer, "output_tokens" integer, "total_tokens" integer, "cached_tokens" integer, "cache_creation_input_tokens" integer, "reasoning_tokens" integer, "cost_usd" numeric(18,8), "currency" text, "metadata" jsonb, CONSTRAINT "llm_gateway_logs_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "llm_gateway_logs_virtual_key_id_idx" ON "audit"."llm_gateway_logs"  ("virtual_key_id", "created_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "llm_gateway_logs_created_at_idx" ON "audit"."llm_gateway_logs"  ("created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "gateway"."api_keys" ("id" uuid NOT NULL, "name" text NOT NULL, "key_hash" bytea NOT NULL, "key_hint" text NOT NULL, "allowed_models" text array, "rpm_limit" integer, "tpm_limit" integer, "daily_budget_usd" numeric(14,4), "allowed_networks" text array, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE, "revoked_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "api_keys_key_hash_key" UNIQUE ("key_hash"), CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "api_keys_name_idx" ON "gateway"."api_keys"  ("name") `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "gateway"."api_keys"`);
    await queryRunner.query(`DROP TABLE "audit"."llm_gateway_logs"`);
  }
}
