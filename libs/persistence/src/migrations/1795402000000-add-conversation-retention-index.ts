import type { MigrationInterface, QueryRunner } from 'typeorm';

// The archive retention pass (hourly) takes the active conversations idle past the cutoff, oldest first,
// 500 at a time: without an index led by `updated_at` each batch read and sorted the whole active table
// (the existing index is led by the owner). On a large table an operator may build the index first
// without a long lock (docs/chat.md, "Upgrading a large database"):
//   CREATE INDEX CONCURRENTLY IF NOT EXISTS conversations_updated_idx ON conversations.conversations (updated_at, id);
// this migration then finds it (an invalid one, left by a failed concurrent build, is built again).
// Never edited after landing.
export class AddConversationRetentionIndex1795402000000 implements MigrationInterface {
  name = 'AddConversationRetentionIndex1795402000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const [row] = (await queryRunner.query(
      `SELECT indisvalid AS "valid" FROM pg_index WHERE indexrelid = to_regclass('conversations.conversations_updated_idx')`,
    )) as { valid: boolean }[];
    if (row?.valid) return;
    if (row) await queryRunner.query(`DROP INDEX "conversations"."conversations_updated_idx"`);
    await queryRunner.query(
      `CREATE INDEX "conversations_updated_idx" ON "conversations"."conversations" ("updated_at", "id")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "conversations"."conversations_updated_idx"`);
  }
}
