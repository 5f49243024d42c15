import type { MigrationInterface, QueryRunner } from 'typeorm';

// UI resources of tool calls (issue 16): generated from UiResourceEntity; deleted with their conversation.
export class CreateUiResources1795383000000 implements MigrationInterface {
  name = 'CreateUiResources1795383000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "conversations"."ui_resources" ("conversation_id" uuid NOT NULL, "tool_call_id" text NOT NULL, "message_id" uuid NOT NULL, "user_id" text NOT NULL, "tenant_id" text, "type" text NOT NULL, "origin" text NOT NULL, "mime_type" text, "uri" text, "tool_name" text NOT NULL, "server_name" text NOT NULL, "html" text, "size" integer, "meta" jsonb, "capabilities" jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "ui_resources_pkey" PRIMARY KEY ("conversation_id", "tool_call_id"))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "conversations"."ui_resources"`);
  }
}
