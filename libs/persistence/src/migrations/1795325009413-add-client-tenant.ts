import type { MigrationInterface, QueryRunner } from 'typeorm';

// Generated from identity's ClientEntity with TypeORM's schema builder; never edited after landing.
// No client rows exist before this migration in any release, so the column can be NOT NULL at once.
export class AddClientTenant1795325009413 implements MigrationInterface {
  name = 'AddClientTenant1795325009413';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "identity"."clients" ADD "tenant_id" uuid NOT NULL`);
    await queryRunner.query(`CREATE INDEX "clients_tenant_id_idx" ON "identity"."clients"  ("tenant_id") `);
    await queryRunner.query(
      `ALTER TABLE "identity"."clients" ADD CONSTRAINT "clients_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "identity"."tenants"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "identity"."clients" DROP CONSTRAINT "clients_tenant_id_fkey"`);
    await queryRunner.query(`DROP INDEX "identity"."clients_tenant_id_idx"`);
    await queryRunner.query(`ALTER TABLE "identity"."clients" DROP COLUMN "tenant_id"`);
  }
}
