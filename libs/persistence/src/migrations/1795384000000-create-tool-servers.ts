import type { MigrationInterface, QueryRunner } from 'typeorm';

// Generated from the agent lib's ToolServerEntity with TypeORM's schema builder; never edited after landing.
export class CreateToolServers1795384000000 implements MigrationInterface {
  name = 'CreateToolServers1795384000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "agent"."tool_servers" ("id" uuid NOT NULL, "name" text NOT NULL, "url" text NOT NULL, "auth_header" bytea, "allowed_tools" text array NOT NULL DEFAULT '{}', "tools" jsonb NOT NULL DEFAULT '[]', "enabled" boolean NOT NULL DEFAULT true, "timeout_ms" integer NOT NULL DEFAULT '15000', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "tool_servers_name_key" UNIQUE ("name"), CONSTRAINT "tool_servers_pkey" PRIMARY KEY ("id"))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "agent"."tool_servers"`);
  }
}
