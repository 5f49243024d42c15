import type { MigrationInterface, QueryRunner } from 'typeorm';

// Organizations and job types per tenant (issue 34): a surrogate id, a nullable tenant (null: platform-wide,
// what every tenant sees), a code unique per tenant and among the platform-wide entries. The rows there were
// are platform-wide. Checked against identity's entities by the drift spec; never edited after landing.
export class ScopeMasterDataByTenant1795404000000 implements MigrationInterface {
  name = 'ScopeMasterDataByTenant1795404000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['organizations', 'job_types']) {
      await queryRunner.query(`ALTER TABLE "identity"."${table}" ADD "id" uuid NOT NULL DEFAULT gen_random_uuid()`);
      await queryRunner.query(`ALTER TABLE "identity"."${table}" ADD "tenant_id" uuid`);
      await queryRunner.query(`ALTER TABLE "identity"."${table}" DROP CONSTRAINT "${table}_pkey"`);
      await queryRunner.query(`ALTER TABLE "identity"."${table}" ADD CONSTRAINT "${table}_pkey" PRIMARY KEY ("id")`);
      await queryRunner.query(
        `CREATE UNIQUE INDEX "${table}_code_tenant_id_key" ON "identity"."${table}" ("code", "tenant_id") `,
      );
      await queryRunner.query(
        `CREATE UNIQUE INDEX "${table}_platform_code_key" ON "identity"."${table}" ("code") WHERE "tenant_id" IS NULL`,
      );
      await queryRunner.query(
        `ALTER TABLE "identity"."${table}" ADD CONSTRAINT "${table}_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "identity"."tenants"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['job_types', 'organizations']) {
      // A code several tenants have cannot be one platform-wide row again: the tenants' own entries go.
      await queryRunner.query(`DELETE FROM "identity"."${table}" WHERE "tenant_id" IS NOT NULL`);
      await queryRunner.query(`ALTER TABLE "identity"."${table}" DROP CONSTRAINT "${table}_tenant_id_fkey"`);
      await queryRunner.query(`DROP INDEX "identity"."${table}_platform_code_key"`);
      await queryRunner.query(`DROP INDEX "identity"."${table}_code_tenant_id_key"`);
      await queryRunner.query(`ALTER TABLE "identity"."${table}" DROP CONSTRAINT "${table}_pkey"`);
      await queryRunner.query(`ALTER TABLE "identity"."${table}" ADD CONSTRAINT "${table}_pkey" PRIMARY KEY ("code")`);
      await queryRunner.query(`ALTER TABLE "identity"."${table}" DROP COLUMN "tenant_id"`);
      await queryRunner.query(`ALTER TABLE "identity"."${table}" DROP COLUMN "id"`);
    }
  }
}
