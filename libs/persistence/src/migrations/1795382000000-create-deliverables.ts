import type { MigrationInterface, QueryRunner } from 'typeorm';

// Generated from conversations' DeliverableEntity with TypeORM's schema builder; never edited after landing.
// The output files of assistant messages; their bytes are blobs under `deliverables/<conversationId>/...`.
export class CreateDeliverables1795382000000 implements MigrationInterface {
  name = 'CreateDeliverables1795382000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "conversations"."deliverables" ("id" uuid NOT NULL, "conversation_id" uuid NOT NULL, "message_id" uuid NOT NULL, "user_id" text NOT NULL, "tenant_id" text, "filepath" text NOT NULL, "filename" text NOT NULL, "mime_type" text, "size" bigint NOT NULL DEFAULT '0', "source" text NOT NULL DEFAULT 'agent', "is_primary" boolean NOT NULL DEFAULT false, "blob_key" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "deliverables_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "deliverables_conversation_idx" ON "conversations"."deliverables"  ("conversation_id") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "deliverables_message_filepath_key" ON "conversations"."deliverables"  ("message_id", "filepath") `,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "conversations"."deliverables_message_filepath_key"`);
    await queryRunner.query(`DROP INDEX "conversations"."deliverables_conversation_idx"`);
    await queryRunner.query(`DROP TABLE "conversations"."deliverables"`);
  }
}
