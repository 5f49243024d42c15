import type { MigrationInterface, QueryRunner } from 'typeorm';

// The platform operator's own integration (issue 34): a client of no tenant, whose tokens carry no `tenant`
// claim and so read every tenant's logs and manage platform-wide master data. Only a client_credentials-only
// client may be one: an application's users always belong to a tenant. Checked against identity's entities by
// the drift spec; never edited after landing.
export class AllowOperatorClients1795406000000 implements MigrationInterface {
  name = 'AllowOperatorClients1795406000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "identity"."clients" ALTER COLUMN "tenant_id" DROP NOT NULL`);
    await queryRunner.query(
      `ALTER TABLE "identity"."clients" ADD CONSTRAINT "clients_tenantless_client_credentials" CHECK ("tenant_id" IS NOT NULL OR "grant_types" = '{client_credentials}')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Refuses (NOT NULL fails) while an operator client exists: delete or move it to a tenant first.
    await queryRunner.query(`ALTER TABLE "identity"."clients" DROP CONSTRAINT "clients_tenantless_client_credentials"`);
    await queryRunner.query(`ALTER TABLE "identity"."clients" ALTER COLUMN "tenant_id" SET NOT NULL`);
  }
}
