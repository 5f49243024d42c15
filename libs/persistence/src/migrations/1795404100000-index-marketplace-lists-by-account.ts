import type { MigrationInterface, QueryRunner } from 'typeorm';

// Marketplace lists without X-Agent-Id (issue 34): a service account's conversations and files across its
// agents, whose owner keys are `<sub>/<agentId>`. Each index is led by the key's account part and holds
// Marketplace rows only (the predicate), so a SaaS install keeps them empty; the entities name them with
// synchronize: false (TypeORM cannot describe an expression). Never edited after landing.
export class IndexMarketplaceListsByAccount1795404100000 implements MigrationInterface {
  name = 'IndexMarketplaceListsByAccount1795404100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "conversations_account_updated_idx" ON "conversations"."conversations"
         (split_part("user_id", '/', 1), "updated_at", "id") WHERE strpos("user_id", '/') > 0`,
    );
    await queryRunner.query(
      `CREATE INDEX "archived_conversations_account_updated_idx" ON "conversations"."archived_conversations"
         (split_part("user_id", '/', 1), "updated_at", "id") WHERE strpos("user_id", '/') > 0`,
    );
    await queryRunner.query(
      `CREATE INDEX "files_account_created_idx" ON "conversations"."files"
         (split_part("user_id", '/', 1), "created_at", "id") WHERE "state" = 'stored' AND strpos("user_id", '/') > 0`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "conversations"."files_account_created_idx"`);
    await queryRunner.query(`DROP INDEX "conversations"."archived_conversations_account_updated_idx"`);
    await queryRunner.query(`DROP INDEX "conversations"."conversations_account_updated_idx"`);
  }
}
