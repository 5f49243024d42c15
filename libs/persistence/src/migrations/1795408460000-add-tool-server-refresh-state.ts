import type { MigrationInterface, QueryRunner } from 'typeorm';

// What an operator sees of a tool server (issue 38): every tool its last listing offered (name and description;
// `tools` keeps only the allowed ones, with their schemas), and when the server was last asked for its tools and
// why that failed, if it did. Existing rows offered at least their recorded tools, listed when last updated.
// Checked against the agent lib's ToolServerEntity by the drift spec; never edited after landing.
export class AddToolServerRefreshState1795408460000 implements MigrationInterface {
  name = 'AddToolServerRefreshState1795408460000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "agent"."tool_servers" ADD "offered_tools" jsonb NOT NULL DEFAULT '[]'`);
    await queryRunner.query(`ALTER TABLE "agent"."tool_servers" ADD "refreshed_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "agent"."tool_servers" ADD "refresh_error" text`);
    await queryRunner.query(
      `UPDATE "agent"."tool_servers" SET "refreshed_at" = "updated_at", "offered_tools" = (
         SELECT coalesce(jsonb_agg(jsonb_build_object('name', "tool"->'name', 'description', coalesce("tool"->'description', '""'::jsonb))), '[]'::jsonb)
         FROM jsonb_array_elements("tools") AS "tool")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "agent"."tool_servers" DROP COLUMN "refresh_error"`);
    await queryRunner.query(`ALTER TABLE "agent"."tool_servers" DROP COLUMN "refreshed_at"`);
    await queryRunner.query(`ALTER TABLE "agent"."tool_servers" DROP COLUMN "offered_tools"`);
  }
}
