import type { MigrationInterface, QueryRunner } from 'typeorm';

// Generated from FileEntity (uploaded files of `POST /v1/files`) with TypeORM's schema builder;
// never edited after landing.
export class CreateFiles1795380000000 implements MigrationInterface {
  name = 'CreateFiles1795380000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "conversations"."files" ("id" uuid NOT NULL, "user_id" text NOT NULL, "tenant_id" text, "filename" text NOT NULL, "bytes" bigint NOT NULL DEFAULT '0', "mime_type" text NOT NULL DEFAULT 'application/octet-stream', "width" integer, "height" integer, "blob_key" text NOT NULL, "state" text NOT NULL DEFAULT 'uploading', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "touched_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "files_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "files_uploading_idx" ON "conversations"."files"  ("touched_at") WHERE "state" = 'uploading'`,
    );
    await queryRunner.query(
      `CREATE INDEX "files_owner_created_idx" ON "conversations"."files"  ("user_id", "created_at", "id") WHERE "state" = 'stored'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "conversations"."files_owner_created_idx"`);
    await queryRunner.query(`DROP INDEX "conversations"."files_uploading_idx"`);
    await queryRunner.query(`DROP TABLE "conversations"."files"`);
  }
}
