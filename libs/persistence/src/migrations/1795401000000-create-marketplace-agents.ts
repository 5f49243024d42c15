import type { MigrationInterface, QueryRunner } from 'typeorm';

// Agents of the Marketplace edition as data (issue 20): what `agentId` names. Never edited after landing.
export class CreateMarketplaceAgents1795401000000 implements MigrationInterface {
  name = 'CreateMarketplaceAgents1795401000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "agent"."marketplace_agents" (
        "id" text NOT NULL,
        "name" text NOT NULL,
        "instructions" text NOT NULL,
        "model_config" jsonb NOT NULL,
        "enabled" boolean NOT NULL DEFAULT true,
        "tenant_id" uuid,
        "deleted_at" TIMESTAMP WITH TIME ZONE,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        CONSTRAINT "marketplace_agents_pkey" PRIMARY KEY ("id")
      )`,
    );
    await queryRunner.query(
      `CREATE INDEX "marketplace_agents_name_idx" ON "agent"."marketplace_agents" ("name", "id")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "agent"."marketplace_agents"`);
  }
}
