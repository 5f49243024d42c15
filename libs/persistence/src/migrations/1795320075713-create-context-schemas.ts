import type { MigrationInterface, QueryRunner } from 'typeorm';

// Landed migrations are never edited: the schema list is written out here, not imported.
const schemas = ['identity', 'conversations', 'agent', 'gateway', 'audit', 'memory'];

export class CreateContextSchemas1795320075713 implements MigrationInterface {
  name = 'CreateContextSchemas1795320075713';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const schema of schemas) await queryRunner.query(`CREATE SCHEMA "${schema}"`);
  }

  // No CASCADE: a later migration that forgets to drop its tables must fail here, not hide it.
  async down(queryRunner: QueryRunner): Promise<void> {
    for (const schema of [...schemas].reverse()) await queryRunner.query(`DROP SCHEMA "${schema}"`);
  }
}
