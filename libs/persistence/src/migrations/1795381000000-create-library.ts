import type { MigrationInterface, QueryRunner } from 'typeorm';

// Generated from the agent lib's LibraryItemEntity with TypeORM's schema builder; never edited after landing.
export class CreateLibrary1795381000000 implements MigrationInterface {
  name = 'CreateLibrary1795381000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "agent"."library_items" ("id" uuid NOT NULL, "filepath" text NOT NULL, "title" text NOT NULL, "kind" text NOT NULL, "description" text, "mime_type" text NOT NULL, "bytes" bigint NOT NULL, "blob_key" text, "content" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "library_items_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "library_items_filepath_key" ON "agent"."library_items"  ("filepath") `,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "agent"."library_items_filepath_key"`);
    await queryRunner.query(`DROP TABLE "agent"."library_items"`);
  }
}
