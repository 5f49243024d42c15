import type { MigrationInterface, QueryRunner } from 'typeorm';

// Generated from identity's TokenFamilyEntity and RefreshTokenEntity with TypeORM's schema builder,
// plus the backfill; never edited after landing. Every existing family gets its row before the
// foreign key is added; a family with any revoked token is revoked (tokens are only ever revoked
// with their family, so an unrevoked one beside them was stored by the race this row closes).
export class AddTokenFamilies1795360000000 implements MigrationInterface {
  name = 'AddTokenFamilies1795360000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "identity"."token_families" ("id" text NOT NULL, "client_id" text NOT NULL, "user_id" uuid NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "revoked_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "token_families_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "token_families_expires_at_idx" ON "identity"."token_families"  ("expires_at") `,
    );
    await queryRunner.query(
      `INSERT INTO "identity"."token_families" ("id", "client_id", "user_id", "created_at", "expires_at", "revoked_at")
       SELECT "family_id", (array_agg("client_id"))[1], (array_agg("user_id"))[1], min("issued_at"),
              max("family_expires_at"), max("revoked_at")
         FROM "identity"."refresh_tokens" GROUP BY "family_id"`,
    );
    await queryRunner.query(
      `UPDATE "identity"."refresh_tokens" AS "token" SET "revoked_at" = "family"."revoked_at"
         FROM "identity"."token_families" AS "family"
        WHERE "family"."id" = "token"."family_id" AND "family"."revoked_at" IS NOT NULL AND "token"."revoked_at" IS NULL`,
    );
    await queryRunner.query(`ALTER TABLE "identity"."refresh_tokens" DROP COLUMN "family_expires_at"`);
    await queryRunner.query(
      `ALTER TABLE "identity"."refresh_tokens" ADD CONSTRAINT "refresh_tokens_family_id_fkey" FOREIGN KEY ("family_id") REFERENCES "identity"."token_families"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "identity"."refresh_tokens" DROP CONSTRAINT "refresh_tokens_family_id_fkey"`);
    await queryRunner.query(`ALTER TABLE "identity"."refresh_tokens" ADD "family_expires_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(
      `UPDATE "identity"."refresh_tokens" AS "token" SET "family_expires_at" = "family"."expires_at"
         FROM "identity"."token_families" AS "family" WHERE "family"."id" = "token"."family_id"`,
    );
    await queryRunner.query(`ALTER TABLE "identity"."refresh_tokens" ALTER COLUMN "family_expires_at" SET NOT NULL`);
    await queryRunner.query(`DROP INDEX "identity"."token_families_expires_at_idx"`);
    await queryRunner.query(`DROP TABLE "identity"."token_families"`);
  }
}
