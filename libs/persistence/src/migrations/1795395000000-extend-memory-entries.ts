import type { MigrationInterface, QueryRunner } from 'typeorm';

// The shared memory's items (issue 17): scope, organization and role, the embedding, the full-text
// vector and the revision the in-process vector index follows; the monthly query quota. The columns
// come from the memory lib's entities with TypeORM's schema builder; the triggers, the counter and
// the GIN index (which TypeORM cannot describe) are written by hand. Never edited after landing.
export class ExtendMemoryEntries1795395000000 implements MigrationInterface {
  name = 'ExtendMemoryEntries1795395000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "memory"."entries" ADD "scope" text NOT NULL DEFAULT 'global'`);
    await queryRunner.query(`ALTER TABLE "memory"."entries" ADD "org_id" text`);
    await queryRunner.query(`ALTER TABLE "memory"."entries" ADD "job_role" text`);
    await queryRunner.query(`ALTER TABLE "memory"."entries" ADD "embedding" bytea`);
    await queryRunner.query(`ALTER TABLE "memory"."entries" ADD "embedding_model" text`);
    await queryRunner.query(`ALTER TABLE "memory"."entries" ADD "search" tsvector`);
    await queryRunner.query(`ALTER TABLE "memory"."entries" ADD "revision" bigint NOT NULL DEFAULT '0'`);
    await queryRunner.query(`ALTER TABLE "memory"."entries" ADD "key" text`);
    await queryRunner.query(
      `ALTER TABLE "memory"."entries" ADD CONSTRAINT "entries_scope_check" CHECK ((scope = 'global' AND org_id IS NULL AND job_role IS NULL) OR (scope = 'organization' AND org_id IS NOT NULL AND job_role IS NULL) OR (scope = 'role' AND job_role IS NOT NULL AND org_id IS NULL))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "entries_key_idx" ON "memory"."entries" ("key") `);
    await queryRunner.query(`CREATE INDEX "entries_revision_idx" ON "memory"."entries" ("revision") `);
    await queryRunner.query(`CREATE INDEX "entries_search_idx" ON "memory"."entries" USING GIN ("search")`);
    await queryRunner.query(
      `CREATE TABLE "memory"."deleted_entries" ("id" uuid NOT NULL, "revision" bigint NOT NULL, CONSTRAINT "deleted_entries_pkey" PRIMARY KEY ("id", "revision"))`,
    );
    await queryRunner.query(`CREATE INDEX "deleted_entries_revision_idx" ON "memory"."deleted_entries" ("revision") `);
    await queryRunner.query(
      `CREATE TABLE "memory"."query_usage" ("bucket" text NOT NULL, "month" date NOT NULL, "used" integer NOT NULL, CONSTRAINT "query_usage_pkey" PRIMARY KEY ("bucket", "month"))`,
    );
    // One counter row: taking the next revision locks it until commit, so revisions commit in order and a
    // reader that has seen revision n has seen every change up to n (a sequence would not give that).
    await queryRunner.query(
      `CREATE TABLE "memory"."revision" ("id" boolean PRIMARY KEY DEFAULT true CHECK ("id"), "value" bigint NOT NULL)`,
    );
    await queryRunner.query(`INSERT INTO "memory"."revision" ("id", "value") VALUES (true, 0)`);
    await queryRunner.query(
      `CREATE FUNCTION "memory"."next_revision"() RETURNS bigint LANGUAGE sql AS $$ UPDATE "memory"."revision" SET "value" = "value" + 1 RETURNING "value" $$`,
    );
    await queryRunner.query(
      `CREATE FUNCTION "memory"."entries_written"() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         NEW."search" := to_tsvector('simple', NEW."title" || ' ' || NEW."content");
         NEW."revision" := "memory"."next_revision"();
         RETURN NEW;
       END $$`,
    );
    await queryRunner.query(
      `CREATE FUNCTION "memory"."entries_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         INSERT INTO "memory"."deleted_entries" ("id", "revision") VALUES (OLD."id", "memory"."next_revision"());
         RETURN OLD;
       END $$`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "entries_written" BEFORE INSERT OR UPDATE ON "memory"."entries" FOR EACH ROW EXECUTE FUNCTION "memory"."entries_written"()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "entries_deleted" AFTER DELETE ON "memory"."entries" FOR EACH ROW EXECUTE FUNCTION "memory"."entries_deleted"()`,
    );
    // Rows written before this migration get their vector and a revision.
    await queryRunner.query(`UPDATE "memory"."entries" SET "updated_at" = "updated_at"`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "entries_deleted" ON "memory"."entries"`);
    await queryRunner.query(`DROP TRIGGER "entries_written" ON "memory"."entries"`);
    await queryRunner.query(`DROP FUNCTION "memory"."entries_deleted"()`);
    await queryRunner.query(`DROP FUNCTION "memory"."entries_written"()`);
    await queryRunner.query(`DROP FUNCTION "memory"."next_revision"()`);
    await queryRunner.query(`DROP TABLE "memory"."revision"`);
    await queryRunner.query(`DROP TABLE "memory"."query_usage"`);
    await queryRunner.query(`DROP TABLE "memory"."deleted_entries"`);
    await queryRunner.query(`DROP INDEX "memory"."entries_search_idx"`);
    await queryRunner.query(`DROP INDEX "memory"."entries_revision_idx"`);
    await queryRunner.query(`DROP INDEX "memory"."entries_key_idx"`);
    await queryRunner.query(`ALTER TABLE "memory"."entries" DROP CONSTRAINT "entries_scope_check"`);
    for (const column of ['key', 'revision', 'search', 'embedding_model', 'embedding', 'job_role', 'org_id', 'scope']) {
      await queryRunner.query(`ALTER TABLE "memory"."entries" DROP COLUMN "${column}"`);
    }
  }
}
