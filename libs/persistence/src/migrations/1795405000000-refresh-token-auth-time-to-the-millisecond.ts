import type { MigrationInterface, QueryRunner } from 'typeorm';

// A refresh token's login instant to the millisecond (issue 34): a session cut-off (a password reset, a
// demotion) is compared with it, so a sign-in just after the cut-off in the same second is not ended by
// it. Rows from before keep their whole second. Checked against identity's entities by the drift spec.
export class RefreshTokenAuthTimeToTheMillisecond1795405000000 implements MigrationInterface {
  name = 'RefreshTokenAuthTimeToTheMillisecond1795405000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "identity"."refresh_tokens" ALTER COLUMN "auth_time" TYPE double precision`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "identity"."refresh_tokens" ALTER COLUMN "auth_time" TYPE bigint USING floor("auth_time")`,
    );
  }
}
