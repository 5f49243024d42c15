import type { MigrationInterface, QueryRunner } from 'typeorm';

// The single-use secrets of the e-mail links of sign-up and password reset (issue 19), stored as
// SHA-256 digests. Generated from identity's AccountTokenEntity with TypeORM's schema builder; never
// edited after landing.
export class CreateAccountTokens1795397000000 implements MigrationInterface {
  name = 'CreateAccountTokens1795397000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "identity"."account_tokens" ("token_hash" text NOT NULL, "user_id" uuid NOT NULL, "purpose" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "used_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "account_tokens_purpose" CHECK ("purpose" IN ('email_verification', 'password_reset')), CONSTRAINT "account_tokens_pkey" PRIMARY KEY ("token_hash"))`,
    );
    await queryRunner.query(`CREATE INDEX "account_tokens_user_id_idx" ON "identity"."account_tokens" ("user_id")`);
    await queryRunner.query(
      `CREATE INDEX "account_tokens_expires_at_idx" ON "identity"."account_tokens" ("expires_at")`,
    );
    await queryRunner.query(
      `ALTER TABLE "identity"."account_tokens" ADD CONSTRAINT "account_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "identity"."users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "identity"."account_tokens" DROP CONSTRAINT "account_tokens_user_id_fkey"`);
    await queryRunner.query(`DROP INDEX "identity"."account_tokens_expires_at_idx"`);
    await queryRunner.query(`DROP INDEX "identity"."account_tokens_user_id_idx"`);
    await queryRunner.query(`DROP TABLE "identity"."account_tokens"`);
  }
}
