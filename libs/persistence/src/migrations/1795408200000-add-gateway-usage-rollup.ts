import type { MigrationInterface, QueryRunner } from 'typeorm';

// Gateway usage per UTC day (issue 38): `audit.llm_gateway_usage_days` holds one row per day, tenant, model (as
// requested), virtual key and principal (`metadata.principal`, the caller: 'api-key:<name>' or 'client:<clientId>'),
// with the requests, errors, tokens and cost of that day's log rows. A statement-level trigger on the gateway log adds
// each insert's rows (the batched writer's one statement is one upsert per bucket it touches, buckets in one order so
// concurrent writers never deadlock), as `audit.log_day_counts` is kept. No trigger on DELETE: the usage outlives the
// log's retention (docs/gateway.md, "Usage over HTTP"). A bucket's key columns may be null, hence NULLS NOT DISTINCT
// (PostgreSQL 15) and a surrogate primary key. Texts are cut so that no log row can make an index entry too long: a
// failing trigger would fail the log's insert. Checked against audit's entity by the drift spec; never edited after
// landing.
//
// The trigger is created before the backfill: CREATE TRIGGER locks out inserts until the run commits, so each row
// is counted exactly once, by the backfill or by the trigger. Writers keep their rows in memory meanwhile.

const BUCKET = `"day", "tenant_id", "model_name", "virtual_key_id", "principal"`;
const FIGURES = `"requests", "errors", "input_tokens", "output_tokens", "total_tokens", "cached_tokens", "cost_usd"`;

/** The buckets of `source`'s rows, summed, upserted. */
function addUsage(source: string): string {
  return `INSERT INTO "audit"."llm_gateway_usage_days" AS u (${BUCKET}, ${FIGURES})
      SELECT ("created_at" AT TIME ZONE 'UTC')::date, left("tenant_id", 100), left("model_name", 200), "virtual_key_id",
             left("metadata"->>'principal', 200),
             count(*), count(*) FILTER (WHERE "success" IS NOT TRUE), coalesce(sum("input_tokens"), 0),
             coalesce(sum("output_tokens"), 0), coalesce(sum("total_tokens"), 0), coalesce(sum("cached_tokens"), 0),
             coalesce(sum("cost_usd"), 0)
        FROM ${source} GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT (${BUCKET}) DO UPDATE SET
        "requests" = u."requests" + EXCLUDED."requests",
        "errors" = u."errors" + EXCLUDED."errors",
        "input_tokens" = u."input_tokens" + EXCLUDED."input_tokens",
        "output_tokens" = u."output_tokens" + EXCLUDED."output_tokens",
        "total_tokens" = u."total_tokens" + EXCLUDED."total_tokens",
        "cached_tokens" = u."cached_tokens" + EXCLUDED."cached_tokens",
        "cost_usd" = u."cost_usd" + EXCLUDED."cost_usd"`;
}

export class AddGatewayUsageRollup1795408200000 implements MigrationInterface {
  name = 'AddGatewayUsageRollup1795408200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "audit"."llm_gateway_usage_days" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "day" date NOT NULL, "tenant_id" text, "model_name" text, "virtual_key_id" uuid, "principal" text, "requests" bigint NOT NULL DEFAULT '0', "errors" bigint NOT NULL DEFAULT '0', "input_tokens" bigint NOT NULL DEFAULT '0', "output_tokens" bigint NOT NULL DEFAULT '0', "total_tokens" bigint NOT NULL DEFAULT '0', "cached_tokens" bigint NOT NULL DEFAULT '0', "cost_usd" numeric NOT NULL DEFAULT '0', CONSTRAINT "llm_gateway_usage_days_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "llm_gateway_usage_days_bucket_key" ON "audit"."llm_gateway_usage_days" (${BUCKET}) NULLS NOT DISTINCT`,
    );
    // A tenant's range; the operator's reads walk the bucket index by day.
    await queryRunner.query(
      `CREATE INDEX "llm_gateway_usage_days_tenant_idx" ON "audit"."llm_gateway_usage_days" ("tenant_id", "day") WHERE "tenant_id" IS NOT NULL`,
    );
    await queryRunner.query(`CREATE FUNCTION "audit"."llm_gateway_usage_add"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        ${addUsage('"changed"')};
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER "llm_gateway_logs_usage_insert" AFTER INSERT ON "audit"."llm_gateway_logs" REFERENCING NEW TABLE AS "changed" FOR EACH STATEMENT EXECUTE FUNCTION "audit"."llm_gateway_usage_add"()`,
    );
    await queryRunner.query(addUsage('"audit"."llm_gateway_logs"'));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "llm_gateway_logs_usage_insert" ON "audit"."llm_gateway_logs"`);
    await queryRunner.query(`DROP FUNCTION "audit"."llm_gateway_usage_add"()`);
    await queryRunner.query(`DROP TABLE "audit"."llm_gateway_usage_days"`);
  }
}
