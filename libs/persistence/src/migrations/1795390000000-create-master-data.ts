import type { MigrationInterface, QueryRunner } from 'typeorm';

// Generated from identity's OrganizationEntity, JobTypeEntity and the admin list's index on UserEntity
// with TypeORM's schema builder; never edited after landing.
export class CreateMasterData1795390000000 implements MigrationInterface {
  name = 'CreateMasterData1795390000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "identity"."organizations" ("code" text NOT NULL, "label" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "organizations_pkey" PRIMARY KEY ("code"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "identity"."job_types" ("code" text NOT NULL, "label" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "job_types_pkey" PRIMARY KEY ("code"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "users_tenant_id_created_at_idx" ON "identity"."users"  ("tenant_id", "created_at") `,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "identity"."users_tenant_id_created_at_idx"`);
    await queryRunner.query(`DROP TABLE "identity"."job_types"`);
    await queryRunner.query(`DROP TABLE "identity"."organizations"`);
  }
}
