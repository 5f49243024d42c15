import type { MigrationInterface, QueryRunner } from 'typeorm';

// Generated from identity's consent, OIDC artifact, refresh-token and revoked-token entities with
// TypeORM's schema builder; never edited after landing.
export class CreateOidcSessions1795330000000 implements MigrationInterface {
  name = 'CreateOidcSessions1795330000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "identity"."consents" ("user_id" uuid NOT NULL, "client_id" text NOT NULL, "scopes" text array NOT NULL, "granted_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "consents_pkey" PRIMARY KEY ("user_id", "client_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "identity"."oidc_artifacts" ("model" text NOT NULL, "id" text NOT NULL, "payload" jsonb NOT NULL, "grant_id" text, "uid" text, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "consumed_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "oidc_artifacts_pkey" PRIMARY KEY ("model", "id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "oidc_artifacts_expires_at_idx" ON "identity"."oidc_artifacts"  ("expires_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "oidc_artifacts_uid_idx" ON "identity"."oidc_artifacts"  ("uid") WHERE "uid" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "oidc_artifacts_grant_id_idx" ON "identity"."oidc_artifacts"  ("grant_id") WHERE "grant_id" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "identity"."refresh_tokens" ("token_hash" bytea NOT NULL, "family_id" text NOT NULL, "client_id" text NOT NULL, "user_id" uuid NOT NULL, "scope" text NOT NULL, "session_id" text NOT NULL, "auth_time" bigint NOT NULL, "access_token_id" text NOT NULL, "access_expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "issued_at" TIMESTAMP WITH TIME ZONE NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "family_expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "used_at" TIMESTAMP WITH TIME ZONE, "revoked_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "refresh_tokens_pkey" PRIMARY KEY ("token_hash"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "refresh_tokens_expires_at_idx" ON "identity"."refresh_tokens"  ("expires_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "refresh_tokens_family_id_idx" ON "identity"."refresh_tokens"  ("family_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "identity"."revoked_access_tokens" ("jti" text NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "revoked_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "revoked_access_tokens_pkey" PRIMARY KEY ("jti"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "revoked_access_tokens_expires_at_idx" ON "identity"."revoked_access_tokens"  ("expires_at") `,
    );
    await queryRunner.query(
      `ALTER TABLE "identity"."consents" ADD CONSTRAINT "consents_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "identity"."users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "identity"."consents" ADD CONSTRAINT "consents_client_id_fkey" FOREIGN KEY ("client_id") REFERENCES "identity"."clients"("client_id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "identity"."revoked_access_tokens"`);
    await queryRunner.query(`DROP TABLE "identity"."refresh_tokens"`);
    await queryRunner.query(`DROP TABLE "identity"."oidc_artifacts"`);
    await queryRunner.query(`DROP TABLE "identity"."consents"`);
  }
}
