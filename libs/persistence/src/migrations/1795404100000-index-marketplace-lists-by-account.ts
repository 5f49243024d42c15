import type { MigrationInterface, QueryRunner } from 'typeorm';

// Marketplace lists without X-Agent-Id (issue 34): a service account's conversations and files across its
// agents, whose owner keys are `<sub>/<agentId>`. Each index is led by the key's account part and holds
// Marketplace rows only (the predicate), so a SaaS install keeps them empty; the entities name them with
// synchronize: false (TypeORM cannot describe an expression). Building one still reads its whole table and
// holds writes to it meanwhile, so on a large database an operator builds them first with CREATE INDEX
// CONCURRENTLY (docs/chat.md, "Upgrading a large database") and this migration finds them; an invalid one,
// left by a failed concurrent build, is built again. Never edited after landing.
const INDEXES: readonly { name: string; definition: string }[] = [
  {
    name: 'conversations_account_updated_idx',
    definition: `"conversations"."conversations" (split_part("user_id", '/', 1), "updated_at", "id")
      WHERE strpos("user_id", '/') > 0`,
  },
  {
    name: 'archived_conversations_account_updated_idx',
    definition: `"conversations"."archived_conversations" (split_part("user_id", '/', 1), "updated_at", "id")
      WHERE strpos("user_id", '/') > 0`,
  },
  {
    name: 'files_account_created_idx',
    definition: `"conversations"."files" (split_part("user_id", '/', 1), "created_at", "id")
      WHERE "state" = 'stored' AND strpos("user_id", '/') > 0`,
  },
];

export class IndexMarketplaceListsByAccount1795404100000 implements MigrationInterface {
  name = 'IndexMarketplaceListsByAccount1795404100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const index of INDEXES) {
      const [row] = (await queryRunner.query(
        `SELECT indisvalid AS "valid" FROM pg_index WHERE indexrelid = to_regclass($1)`,
        [`conversations.${index.name}`],
      )) as { valid: boolean }[];
      if (row?.valid) continue;
      if (row) await queryRunner.query(`DROP INDEX "conversations"."${index.name}"`);
      await queryRunner.query(`CREATE INDEX "${index.name}" ON ${index.definition}`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const index of [...INDEXES].reverse()) {
      await queryRunner.query(`DROP INDEX "conversations"."${index.name}"`);
    }
  }
}
