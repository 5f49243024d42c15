import type { MigrationInterface, QueryRunner } from 'typeorm';

// RFC 8707 (issue 35): a refresh token remembers the resource its login's tokens were issued for, so a
// refresh issues an access token with the same `aud`, and a refresh naming another resource is
// `invalid_target`. NULL: no resource (`aud: broker`), as every token issued before. Checked against
// identity's entities by the drift spec; never edited after landing.
export class AddRefreshTokenResource1795407000000 implements MigrationInterface {
  name = 'AddRefreshTokenResource1795407000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "identity"."refresh_tokens" ADD "resource" text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "identity"."refresh_tokens" DROP COLUMN "resource"`);
  }
}
