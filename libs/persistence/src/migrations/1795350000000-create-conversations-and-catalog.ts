import type { MigrationInterface, QueryRunner } from 'typeorm';

// Generated from the conversations entities (conversations, archived conversations, messages, tasks),
// the agent catalog (personas, playbooks, skills) and the shared-memory entry with TypeORM's schema
// builder; never edited after landing.
export class CreateConversationsAndCatalog1795350000000 implements MigrationInterface {
  name = 'CreateConversationsAndCatalog1795350000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "conversations"."conversations" ("id" uuid NOT NULL, "user_id" text NOT NULL, "tenant_id" text, "title" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "conversations_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "conversations_user_updated_idx" ON "conversations"."conversations"  ("user_id", "updated_at", "id")`,
    );
    await queryRunner.query(
      `CREATE TABLE "conversations"."archived_conversations" ("id" uuid NOT NULL, "user_id" text NOT NULL, "tenant_id" text, "title" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, "archived_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "archived_conversations_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "archived_conversations_user_updated_idx" ON "conversations"."archived_conversations"  ("user_id", "updated_at", "id")`,
    );
    await queryRunner.query(
      `CREATE TABLE "conversations"."messages" ("id" uuid NOT NULL, "seq" BIGSERIAL NOT NULL, "conversation_id" uuid NOT NULL, "user_id" text NOT NULL, "tenant_id" text, "sender" text NOT NULL, "text" text NOT NULL, "processing" boolean NOT NULL DEFAULT false, "unfinished" boolean NOT NULL DEFAULT false, "files" jsonb, "deliverables" jsonb, "turn_options" jsonb, "reply_to" uuid, "pending_interaction" jsonb, "cancel_requested_at" TIMESTAMP WITH TIME ZONE, "heartbeat_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "messages_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "messages_processing_heartbeat_idx" ON "conversations"."messages"  ("heartbeat_at") WHERE "processing"`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "messages_one_processing_idx" ON "conversations"."messages"  ("conversation_id") WHERE "processing"`,
    );
    await queryRunner.query(
      `CREATE INDEX "messages_conversation_seq_idx" ON "conversations"."messages"  ("conversation_id", "seq")`,
    );
    await queryRunner.query(
      `CREATE TABLE "conversations"."tasks" ("id" uuid NOT NULL, "message_id" uuid NOT NULL, "conversation_id" uuid NOT NULL, "position" integer NOT NULL, "call_id" text, "action_type" text NOT NULL, "title" text, "description" text, "content" text, "status" text NOT NULL, "metadata" jsonb, "files" jsonb, "timestamp" bigint NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "tasks_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "tasks_message_position_idx" ON "conversations"."tasks"  ("message_id", "position")`,
    );
    await queryRunner.query(
      `CREATE TABLE "agent"."personas" ("key" text NOT NULL, "name" text NOT NULL, "description" text NOT NULL, "instructions" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "personas_pkey" PRIMARY KEY ("key"))`,
    );
    await queryRunner.query(`CREATE INDEX "personas_name_idx" ON "agent"."personas"  ("name", "key")`);
    await queryRunner.query(
      `CREATE TABLE "agent"."playbooks" ("id" uuid NOT NULL, "name" text NOT NULL, "description" text NOT NULL, "instructions" text NOT NULL, "active" boolean NOT NULL DEFAULT true, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "playbooks_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "playbooks_name_idx" ON "agent"."playbooks"  ("name", "id")`);
    await queryRunner.query(
      `CREATE TABLE "agent"."skills" ("id" uuid NOT NULL, "name" text NOT NULL, "description" text NOT NULL, "instructions" text NOT NULL, "available" boolean NOT NULL DEFAULT true, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "skills_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "skills_name_idx" ON "agent"."skills"  ("name", "id")`);
    await queryRunner.query(
      `CREATE TABLE "memory"."entries" ("id" uuid NOT NULL, "tenant_id" text, "title" text NOT NULL, "content" text NOT NULL, "source" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "entries_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "entries_tenant_updated_idx" ON "memory"."entries"  ("tenant_id", "updated_at")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "memory"."entries"`);
    await queryRunner.query(`DROP TABLE "agent"."skills"`);
    await queryRunner.query(`DROP TABLE "agent"."playbooks"`);
    await queryRunner.query(`DROP TABLE "agent"."personas"`);
    await queryRunner.query(`DROP TABLE "conversations"."tasks"`);
    await queryRunner.query(`DROP TABLE "conversations"."messages"`);
    await queryRunner.query(`DROP TABLE "conversations"."archived_conversations"`);
    await queryRunner.query(`DROP TABLE "conversations"."conversations"`);
  }
}
