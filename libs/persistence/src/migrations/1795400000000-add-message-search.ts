import type { MigrationInterface, QueryRunner } from 'typeorm';

// Message search (issue 20): each message's text-search configuration (its language's, chosen by the
// writer) and its tsvector, set by a trigger once the turn has ended (never while the assistant text
// is rewritten on every heartbeat); a GIN index over (user_id, vector), a trigram GIN index over
// (user_id, text) and a btree index over (user_id, created_at, seq) that a search walks newest first,
// all without processing rows. The vector is a trigger's rather than a generated column: TypeORM reads
// a generated column's expression from a `typeorm_metadata` table this schema has not got. Existing
// messages get `simple` (words as written) without language detection. The extensions are trusted (a
// database owner may create them) and stay when this is reverted, since something else may use them.
//
// On a large table an operator runs docs/upgrade-message-search.sql first (no long lock: the columns,
// the trigger, a backfill in batches, the indexes built concurrently). Every step here is then skipped,
// without even the lock its statement would take, but the backfill of rows written meanwhile.
// Never edited after landing.
export class AddMessageSearch1795400000000 implements MigrationInterface {
  name = 'AddMessageSearch1795400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const missing = async (sql: string, parameters: unknown[]) =>
      ((await queryRunner.query(sql, parameters)) as unknown[]).length === 0;
    const columnMissing = (column: string) =>
      missing(
        `SELECT 1 FROM pg_attribute
          WHERE attrelid = 'conversations.messages'::regclass AND attname = $1 AND NOT attisdropped`,
        [column],
      );
    // An index the operator's concurrent build left invalid (it failed) is built again.
    const indexMissing = async (index: string) => {
      const [row] = (await queryRunner.query(
        `SELECT indisvalid AS "valid" FROM pg_index WHERE indexrelid = to_regclass($1)`,
        [`conversations.${index}`],
      )) as { valid: boolean }[];
      if (row && !row.valid) await queryRunner.query(`DROP INDEX "conversations"."${index}"`);
      return !row?.valid;
    };

    await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS btree_gin`);
    if (await columnMissing('search_config')) {
      await queryRunner.query(
        `ALTER TABLE "conversations"."messages" ADD COLUMN IF NOT EXISTS "search_config" text NOT NULL DEFAULT 'simple'`,
      );
    }
    if (await columnMissing('search_vector')) {
      await queryRunner.query(
        `ALTER TABLE "conversations"."messages" ADD COLUMN IF NOT EXISTS "search_vector" tsvector`,
      );
    }
    await queryRunner.query(
      `CREATE OR REPLACE FUNCTION "conversations"."messages_search_vector"() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         NEW."search_vector" := to_tsvector(NEW."search_config"::regconfig, left(NEW."text", 100000));
         RETURN NEW;
       END $$`,
    );
    const triggerMissing = await missing(
      `SELECT 1 FROM pg_trigger
        WHERE tgrelid = 'conversations.messages'::regclass AND tgname = 'messages_search_vector' AND NOT tgisinternal`,
      [],
    );
    if (triggerMissing) {
      await queryRunner.query(`DROP TRIGGER IF EXISTS "messages_search_vector" ON "conversations"."messages"`);
      await queryRunner.query(
        `CREATE TRIGGER "messages_search_vector" BEFORE INSERT OR UPDATE OF "text", "search_config", "processing"
           ON "conversations"."messages" FOR EACH ROW WHEN (NOT NEW."processing")
           EXECUTE FUNCTION "conversations"."messages_search_vector"()`,
      );
    }
    // Only the first 100,000 characters are stemmed: a tsvector holds at most 1 MB, and a message up to 1 MB.
    // After the operator's script, only the rows it missed (none, or the few written around it).
    await queryRunner.query(
      `UPDATE "conversations"."messages" SET "search_vector" = to_tsvector('simple', left("text", 100000))
        WHERE "search_vector" IS NULL AND NOT "processing"`,
    );
    if (await indexMissing('messages_search_idx')) {
      await queryRunner.query(
        `CREATE INDEX IF NOT EXISTS "messages_search_idx" ON "conversations"."messages"
           USING gin ("user_id", "search_vector") WHERE NOT "processing"`,
      );
    }
    if (await indexMissing('messages_text_trgm_idx')) {
      await queryRunner.query(
        `CREATE INDEX IF NOT EXISTS "messages_text_trgm_idx" ON "conversations"."messages"
           USING gin ("user_id", "text" gin_trgm_ops) WHERE NOT "processing"`,
      );
    }
    if (await indexMissing('messages_owner_newest_idx')) {
      await queryRunner.query(
        `CREATE INDEX IF NOT EXISTS "messages_owner_newest_idx" ON "conversations"."messages"
           ("user_id", "created_at" DESC, "seq" DESC) WHERE NOT "processing"`,
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "conversations"."messages_owner_newest_idx"`);
    await queryRunner.query(`DROP INDEX "conversations"."messages_text_trgm_idx"`);
    await queryRunner.query(`DROP INDEX "conversations"."messages_search_idx"`);
    await queryRunner.query(`DROP TRIGGER "messages_search_vector" ON "conversations"."messages"`);
    await queryRunner.query(`DROP FUNCTION "conversations"."messages_search_vector"()`);
    await queryRunner.query(`ALTER TABLE "conversations"."messages" DROP COLUMN "search_vector"`);
    await queryRunner.query(`ALTER TABLE "conversations"."messages" DROP COLUMN "search_config"`);
  }
}
