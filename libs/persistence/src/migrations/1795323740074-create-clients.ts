import type { MigrationInterface, QueryRunner } from 'typeorm';

// Generated from identity's ClientEntity with TypeORM's schema builder; never edited after landing.
export class CreateClients1795323740074 implements MigrationInterface {
  name = 'CreateClients1795323740074';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "identity"."clients" ("client_id" text NOT NULL, "name" text NOT NULL, "secret_hash" bytea NOT NULL, "secret_rotated_at" TIMESTAMP WITH TIME ZONE NOT NULL, "redirect_uris" text array NOT NULL, "grant_types" text array NOT NULL, "scopes" text array NOT NULL, "publication_status" text NOT NULL, "consent_required" boolean NOT NULL, "service_account_id" uuid NOT NULL, "enabled" boolean NOT NULL DEFAULT true, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "clients_service_account_id_key" UNIQUE ("service_account_id"), CONSTRAINT "clients_publication_status" CHECK ("publication_status" IN ('Published', 'Unpublished')), CONSTRAINT "clients_pkey" PRIMARY KEY ("client_id"))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "identity"."clients"`);
  }
}
