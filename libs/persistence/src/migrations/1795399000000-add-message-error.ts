import type { MigrationInterface, QueryRunner } from 'typeorm';

// Why a turn failed (its error chunk's `error`: code and message), kept on its message: the chunk log
// expires, and A2A's `failed` state must still read as failed afterwards. Never edited after landing.
export class AddMessageError1795399000000 implements MigrationInterface {
  name = 'AddMessageError1795399000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "conversations"."messages" ADD "error" jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "conversations"."messages" DROP COLUMN "error"`);
  }
}
