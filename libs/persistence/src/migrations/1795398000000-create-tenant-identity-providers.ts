import type { MigrationInterface, QueryRunner } from 'typeorm';

// Enterprise tenants' own identity providers (issue 19): the provider of each tenant (its client secret
// sealed), the e-mail domains of home-realm discovery, and the upstream tokens of each user's last
// sign-in. Generated from identity's TenantIdpEntity, TenantIdpDomainEntity and IdpUserTokensEntity
// with TypeORM's schema builder; never edited after landing.
export class CreateTenantIdentityProviders1795398000000 implements MigrationInterface {
  name = 'CreateTenantIdentityProviders1795398000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "identity"."idp_user_tokens" ("user_id" uuid NOT NULL, "access_token_ciphertext" bytea NOT NULL, "refresh_token_ciphertext" bytea, "access_expires_at" TIMESTAMP WITH TIME ZONE, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "idp_user_tokens_pkey" PRIMARY KEY ("user_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "identity"."tenant_identity_providers" ("tenant_id" uuid NOT NULL, "issuer" text NOT NULL, "client_id" text NOT NULL, "client_secret_ciphertext" bytea NOT NULL, "scopes" text array NOT NULL, "claims" jsonb NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "tenant_identity_providers_pkey" PRIMARY KEY ("tenant_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "identity"."tenant_idp_domains" ("domain" text NOT NULL, "tenant_id" uuid NOT NULL, CONSTRAINT "tenant_idp_domains_pkey" PRIMARY KEY ("domain"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "tenant_idp_domains_tenant_id_idx" ON "identity"."tenant_idp_domains" ("tenant_id")`,
    );
    await queryRunner.query(
      `ALTER TABLE "identity"."idp_user_tokens" ADD CONSTRAINT "idp_user_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "identity"."users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "identity"."tenant_identity_providers" ADD CONSTRAINT "tenant_identity_providers_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "identity"."tenants"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "identity"."tenant_idp_domains" ADD CONSTRAINT "tenant_idp_domains_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "identity"."tenant_identity_providers"("tenant_id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "identity"."tenant_idp_domains" DROP CONSTRAINT "tenant_idp_domains_tenant_id_fkey"`,
    );
    await queryRunner.query(
      `ALTER TABLE "identity"."tenant_identity_providers" DROP CONSTRAINT "tenant_identity_providers_tenant_id_fkey"`,
    );
    await queryRunner.query(`ALTER TABLE "identity"."idp_user_tokens" DROP CONSTRAINT "idp_user_tokens_user_id_fkey"`);
    await queryRunner.query(`DROP INDEX "identity"."tenant_idp_domains_tenant_id_idx"`);
    await queryRunner.query(`DROP TABLE "identity"."tenant_idp_domains"`);
    await queryRunner.query(`DROP TABLE "identity"."tenant_identity_providers"`);
    await queryRunner.query(`DROP TABLE "identity"."idp_user_tokens"`);
  }
}
