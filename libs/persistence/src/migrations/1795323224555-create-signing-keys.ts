import type { MigrationInterface, QueryRunner } from 'typeorm';

// Generated from identity's SigningKeyEntity with TypeORM's schema builder; never edited after landing.
export class CreateSigningKeys1795323224555 implements MigrationInterface {
  name = 'CreateSigningKeys1795323224555';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "identity"."signing_keys" ("kid" text NOT NULL, "alg" text NOT NULL, "public_jwk" jsonb NOT NULL, "private_key_ciphertext" bytea NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "activates_at" TIMESTAMP WITH TIME ZONE NOT NULL, "retired_at" TIMESTAMP WITH TIME ZONE, "expires_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "signing_keys_expires_after_retirement" CHECK ("expires_at" IS NULL OR ("retired_at" IS NOT NULL AND "expires_at" >= "retired_at")), CONSTRAINT "signing_keys_retired_after_activation" CHECK ("retired_at" IS NULL OR "retired_at" >= "activates_at"), CONSTRAINT "signing_keys_alg" CHECK ("alg" = 'RS256'), CONSTRAINT "signing_keys_pkey" PRIMARY KEY ("kid"))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "identity"."signing_keys"`);
  }
}
