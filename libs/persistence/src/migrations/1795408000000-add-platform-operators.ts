import type { MigrationInterface, QueryRunner } from 'typeorm';

// Platform operator accounts (issue 38): a user who is an admin and a platform operator may hold
// `platform:manage`; the flag is set only by platformctl and realm files. A client of a tenant never gets
// `platform:manage` with client_credentials (its tokens would carry the tenant and the platform's power); only
// the operator's own integration (no tenant) does. Checked against identity's entities by the drift spec; never
// edited after landing.
export class AddPlatformOperators1795408000000 implements MigrationInterface {
  name = 'AddPlatformOperators1795408000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "identity"."users" ADD "platform_operator" boolean NOT NULL DEFAULT false`);
    await queryRunner.query(
      `ALTER TABLE "identity"."clients" ADD CONSTRAINT "clients_platform_scope_tenantless" CHECK ("tenant_id" IS NULL OR NOT ('platform:manage' = ANY ("scopes") AND 'client_credentials' = ANY ("grant_types")))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "identity"."clients" DROP CONSTRAINT "clients_platform_scope_tenantless"`);
    await queryRunner.query(`ALTER TABLE "identity"."users" DROP COLUMN "platform_operator"`);
  }
}
