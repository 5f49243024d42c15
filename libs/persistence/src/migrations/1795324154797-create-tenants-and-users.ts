import type { MigrationInterface, QueryRunner } from 'typeorm';

// Generated from identity's TenantEntity and UserEntity with TypeORM's schema builder; never edited after landing.
export class CreateTenantsAndUsers1795324154797 implements MigrationInterface {
  name = 'CreateTenantsAndUsers1795324154797';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "identity"."tenants" ("id" uuid NOT NULL, "name" text NOT NULL, "type" text NOT NULL, "endpoint" text NOT NULL, "enabled" boolean NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "tenants_name_key" UNIQUE ("name"), CONSTRAINT "tenants_type" CHECK ("type" IN ('enterprise', 'saas')), CONSTRAINT "tenants_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "identity"."users" ("id" uuid NOT NULL, "tenant_id" uuid NOT NULL, "email" text NOT NULL, "email_verified" boolean NOT NULL, "username" text NOT NULL, "display_name" text NOT NULL, "password_hash" text, "role" text NOT NULL, "developer" boolean NOT NULL, "status" text NOT NULL, "organization" jsonb, "job" jsonb, "bio" text, "idp_subject" text, "sessions_valid_after" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, "last_login_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "users_username_key" UNIQUE ("username"), CONSTRAINT "users_email_key" UNIQUE ("email"), CONSTRAINT "users_status" CHECK ("status" IN ('unverified', 'pending', 'approved')), CONSTRAINT "users_role" CHECK ("role" IN ('admin', 'user')), CONSTRAINT "users_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "users_tenant_id_idx" ON "identity"."users"  ("tenant_id")`);
    await queryRunner.query(
      `ALTER TABLE "identity"."users" ADD CONSTRAINT "users_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "identity"."tenants"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "identity"."users" DROP CONSTRAINT "users_tenant_id_fkey"`);
    await queryRunner.query(`DROP INDEX "identity"."users_tenant_id_idx"`);
    await queryRunner.query(`DROP TABLE "identity"."users"`);
    await queryRunner.query(`DROP TABLE "identity"."tenants"`);
  }
}
