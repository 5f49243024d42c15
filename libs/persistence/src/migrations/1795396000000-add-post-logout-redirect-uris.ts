import type { MigrationInterface, QueryRunner } from 'typeorm';

// Sign-out (issue 19): the URIs a client may name as `post_logout_redirect_uri` (existing clients get
// none, so no sign-out redirects anywhere until its operator registers one), and an index to find the
// refresh tokens of one browser session. Generated from identity's ClientEntity and RefreshTokenEntity
// with TypeORM's schema builder; never edited after landing.
export class AddPostLogoutRedirectUris1795396000000 implements MigrationInterface {
  name = 'AddPostLogoutRedirectUris1795396000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "identity"."clients" ADD "post_logout_redirect_uris" text array NOT NULL DEFAULT '{}'`,
    );
    await queryRunner.query(
      `CREATE INDEX "refresh_tokens_session_id_idx" ON "identity"."refresh_tokens" ("session_id")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "identity"."refresh_tokens_session_id_idx"`);
    await queryRunner.query(`ALTER TABLE "identity"."clients" DROP COLUMN "post_logout_redirect_uris"`);
  }
}
