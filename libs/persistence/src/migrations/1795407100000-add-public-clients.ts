import type { MigrationInterface, QueryRunner } from 'typeorm';

// Public clients that register themselves (issue 35): an MCP client names itself by the URL of its Client ID
// Metadata Document or registers by RFC 7591. Such a client has no secret (token_endpoint_auth_method none),
// belongs to no tenant (its users' tokens carry the user's tenant) and a metadata document's row is fetched
// again once it expires. Checked against identity's entities by the drift spec; never edited after landing.
export class AddPublicClients1795407100000 implements MigrationInterface {
  name = 'AddPublicClients1795407100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "identity"."clients" ALTER COLUMN "secret_hash" DROP NOT NULL`);
    await queryRunner.query(
      `ALTER TABLE "identity"."clients" ADD "token_endpoint_auth_method" text NOT NULL DEFAULT 'client_secret_basic'`,
    );
    await queryRunner.query(`ALTER TABLE "identity"."clients" ADD "registration" text NOT NULL DEFAULT 'operator'`);
    await queryRunner.query(`ALTER TABLE "identity"."clients" ADD "metadata_expires_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "identity"."clients" DROP CONSTRAINT "clients_tenantless_client_credentials"`);
    await queryRunner.query(
      `ALTER TABLE "identity"."clients" ADD CONSTRAINT "clients_tenantless_client_credentials" CHECK ("tenant_id" IS NOT NULL OR "grant_types" = '{client_credentials}' OR "registration" <> 'operator')`,
    );
    await queryRunner.query(
      `ALTER TABLE "identity"."clients" ADD CONSTRAINT "clients_token_endpoint_auth_method" CHECK ("token_endpoint_auth_method" IN ('client_secret_basic', 'none'))`,
    );
    await queryRunner.query(
      `ALTER TABLE "identity"."clients" ADD CONSTRAINT "clients_registration" CHECK ("registration" IN ('operator', 'metadata_document', 'dynamic'))`,
    );
    await queryRunner.query(
      `ALTER TABLE "identity"."clients" ADD CONSTRAINT "clients_public_without_secret" CHECK (("token_endpoint_auth_method" = 'none') = ("secret_hash" IS NULL))`,
    );
    await queryRunner.query(
      `ALTER TABLE "identity"."clients" ADD CONSTRAINT "clients_public_pkce" CHECK ("token_endpoint_auth_method" <> 'none' OR "require_pkce")`,
    );
    await queryRunner.query(
      `ALTER TABLE "identity"."clients" ADD CONSTRAINT "clients_self_registered_public" CHECK ("registration" = 'operator' OR ("token_endpoint_auth_method" = 'none' AND "tenant_id" IS NULL))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Self-registered clients go: the earlier schema has no place for them (they register again on first use).
    await queryRunner.query(`DELETE FROM "identity"."clients" WHERE "registration" <> 'operator'`);
    await queryRunner.query(`ALTER TABLE "identity"."clients" DROP CONSTRAINT "clients_self_registered_public"`);
    await queryRunner.query(`ALTER TABLE "identity"."clients" DROP CONSTRAINT "clients_public_pkce"`);
    await queryRunner.query(`ALTER TABLE "identity"."clients" DROP CONSTRAINT "clients_public_without_secret"`);
    await queryRunner.query(`ALTER TABLE "identity"."clients" DROP CONSTRAINT "clients_registration"`);
    await queryRunner.query(`ALTER TABLE "identity"."clients" DROP CONSTRAINT "clients_token_endpoint_auth_method"`);
    await queryRunner.query(`ALTER TABLE "identity"."clients" DROP CONSTRAINT "clients_tenantless_client_credentials"`);
    await queryRunner.query(
      `ALTER TABLE "identity"."clients" ADD CONSTRAINT "clients_tenantless_client_credentials" CHECK ("tenant_id" IS NOT NULL OR "grant_types" = '{client_credentials}')`,
    );
    await queryRunner.query(`ALTER TABLE "identity"."clients" DROP COLUMN "metadata_expires_at"`);
    await queryRunner.query(`ALTER TABLE "identity"."clients" DROP COLUMN "registration"`);
    await queryRunner.query(`ALTER TABLE "identity"."clients" DROP COLUMN "token_endpoint_auth_method"`);
    await queryRunner.query(`ALTER TABLE "identity"."clients" ALTER COLUMN "secret_hash" SET NOT NULL`);
  }
}
