import type { MigrationInterface, QueryRunner } from 'typeorm';

// Generated from identity's ClientEntity and SigningKeyEntity with TypeORM's schema builder; never edited
// after landing. Every client, existing ones included, requires PKCE unless its operator opts it out
// (realm file `requirePkce: false`, or `platformctl clients create --pkce-optional`).
export class AddPkcePolicyAndKeyRevocation1795370000000 implements MigrationInterface {
  name = 'AddPkcePolicyAndKeyRevocation1795370000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "identity"."clients" ADD "require_pkce" boolean NOT NULL DEFAULT true`);
    await queryRunner.query(`ALTER TABLE "identity"."signing_keys" ADD "revoked_at" TIMESTAMP WITH TIME ZONE`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "identity"."signing_keys" DROP COLUMN "revoked_at"`);
    await queryRunner.query(`ALTER TABLE "identity"."clients" DROP COLUMN "require_pkce"`);
  }
}
