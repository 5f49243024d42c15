import type { MigrationInterface, QueryRunner } from 'typeorm';

// Two narrower day rollups of gateway usage beside `audit.llm_gateway_usage_days` (AddGatewayUsageRollup1795408200000):
// per day, tenant and model (`llm_gateway_usage_model_days`), and per day, tenant, key and principal
// (`llm_gateway_usage_caller_days`). Usage by model then reads a row per model and day instead of one per model,
// key and principal (16 times fewer at 66 callers and 8 models), usage by key or user one per caller and day (8 times
// fewer); the finer table still answers a model filter with a key or user grouping, and the reverse. The trigger
// function now upserts the three, one statement each, in one order (fine, model, caller), buckets sorted, so that
// concurrent writers never deadlock. Fill factor 50 on all three: today's buckets are updated by every write of the
// log, and room on their page makes those updates HOT (no new index entries). Checked against audit's entities by
// the drift spec; never edited after landing.
//
// The log is locked against inserts first (SHARE ROW EXCLUSIVE, as CREATE TRIGGER takes), so the new tables are
// filled from the fine one while nothing changes it, and every later row goes through the new function.

const FIGURES = `"requests", "errors", "input_tokens", "output_tokens", "total_tokens", "cached_tokens", "cost_usd"`;
const ADDED = `"requests" = u."requests" + EXCLUDED."requests", "errors" = u."errors" + EXCLUDED."errors",
  "input_tokens" = u."input_tokens" + EXCLUDED."input_tokens", "output_tokens" = u."output_tokens" + EXCLUDED."output_tokens",
  "total_tokens" = u."total_tokens" + EXCLUDED."total_tokens", "cached_tokens" = u."cached_tokens" + EXCLUDED."cached_tokens",
  "cost_usd" = u."cost_usd" + EXCLUDED."cost_usd"`;

/** A bucket column and how a log row gives it (texts cut as the first migration cuts them). */
const COLUMNS = {
  day: `("created_at" AT TIME ZONE 'UTC')::date`,
  tenant_id: `left("tenant_id", 100)`,
  model_name: `left("model_name", 200)`,
  virtual_key_id: `"virtual_key_id"`,
  principal: `left("metadata"->>'principal', 200)`,
} as const;
type Column = keyof typeof COLUMNS;

const ROLLUPS: { table: string; bucket: Column[] }[] = [
  { table: 'llm_gateway_usage_days', bucket: ['day', 'tenant_id', 'model_name', 'virtual_key_id', 'principal'] },
  { table: 'llm_gateway_usage_model_days', bucket: ['day', 'tenant_id', 'model_name'] },
  { table: 'llm_gateway_usage_caller_days', bucket: ['day', 'tenant_id', 'virtual_key_id', 'principal'] },
];
const [FINE, ...NARROW] = ROLLUPS as [(typeof ROLLUPS)[number], ...(typeof ROLLUPS)[number][]];

const quoted = (bucket: Column[]) => bucket.map((column) => `"${column}"`).join(', ');
const positions = (bucket: Column[]) => bucket.map((_, i) => i + 1).join(', ');

/** Log rows (`changed`, the statement's transition table) summed into `table`'s buckets, in the buckets' order. */
function addChanged({ table, bucket }: (typeof ROLLUPS)[number]): string {
  return `INSERT INTO "audit"."${table}" AS u (${quoted(bucket)}, ${FIGURES})
      SELECT ${bucket.map((column) => COLUMNS[column]).join(', ')},
             count(*), count(*) FILTER (WHERE "success" IS NOT TRUE), coalesce(sum("input_tokens"), 0),
             coalesce(sum("output_tokens"), 0), coalesce(sum("total_tokens"), 0), coalesce(sum("cached_tokens"), 0),
             coalesce(sum("cost_usd"), 0)
        FROM "changed" GROUP BY ${positions(bucket)} ORDER BY ${positions(bucket)}
      ON CONFLICT (${quoted(bucket)}) DO UPDATE SET ${ADDED}`;
}

/** The fine rollup summed into a narrower one (the backfill). */
function addFine({ table, bucket }: (typeof ROLLUPS)[number]): string {
  return `INSERT INTO "audit"."${table}" (${quoted(bucket)}, ${FIGURES})
      SELECT ${quoted(bucket)}, sum("requests"), sum("errors"), sum("input_tokens"), sum("output_tokens"),
             sum("total_tokens"), sum("cached_tokens"), sum("cost_usd")
        FROM "audit"."llm_gateway_usage_days" GROUP BY ${positions(bucket)} ORDER BY ${positions(bucket)}`;
}

const usageFunction = (rollups: (typeof ROLLUPS)[number][]) =>
  `CREATE OR REPLACE FUNCTION "audit"."llm_gateway_usage_add"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        ${rollups.map((rollup) => `${addChanged(rollup)};`).join('\n        ')}
        RETURN NULL;
      END $$`;

export class AddGatewayUsageByModelAndCaller1795408200001 implements MigrationInterface {
  name = 'AddGatewayUsageByModelAndCaller1795408200001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`LOCK TABLE "audit"."llm_gateway_logs" IN SHARE ROW EXCLUSIVE MODE`);
    await queryRunner.query(
      `CREATE TABLE "audit"."llm_gateway_usage_model_days" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "day" date NOT NULL, "tenant_id" text, "model_name" text, "requests" bigint NOT NULL DEFAULT '0', "errors" bigint NOT NULL DEFAULT '0', "input_tokens" bigint NOT NULL DEFAULT '0', "output_tokens" bigint NOT NULL DEFAULT '0', "total_tokens" bigint NOT NULL DEFAULT '0', "cached_tokens" bigint NOT NULL DEFAULT '0', "cost_usd" numeric NOT NULL DEFAULT '0', CONSTRAINT "llm_gateway_usage_model_days_pkey" PRIMARY KEY ("id")) WITH (fillfactor = 50)`,
    );
    await queryRunner.query(
      `CREATE TABLE "audit"."llm_gateway_usage_caller_days" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "day" date NOT NULL, "tenant_id" text, "virtual_key_id" uuid, "principal" text, "requests" bigint NOT NULL DEFAULT '0', "errors" bigint NOT NULL DEFAULT '0', "input_tokens" bigint NOT NULL DEFAULT '0', "output_tokens" bigint NOT NULL DEFAULT '0', "total_tokens" bigint NOT NULL DEFAULT '0', "cached_tokens" bigint NOT NULL DEFAULT '0', "cost_usd" numeric NOT NULL DEFAULT '0', CONSTRAINT "llm_gateway_usage_caller_days_pkey" PRIMARY KEY ("id")) WITH (fillfactor = 50)`,
    );
    for (const { table, bucket } of NARROW) {
      await queryRunner.query(
        `CREATE UNIQUE INDEX "${table}_bucket_key" ON "audit"."${table}" (${quoted(bucket)}) NULLS NOT DISTINCT`,
      );
      await queryRunner.query(
        `CREATE INDEX "${table}_tenant_idx" ON "audit"."${table}" ("tenant_id", "day") WHERE "tenant_id" IS NOT NULL`,
      );
    }
    await queryRunner.query(`ALTER TABLE "audit"."llm_gateway_usage_days" SET (fillfactor = 50)`);
    await queryRunner.query(usageFunction(ROLLUPS));
    for (const rollup of NARROW) await queryRunner.query(addFine(rollup));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`LOCK TABLE "audit"."llm_gateway_logs" IN SHARE ROW EXCLUSIVE MODE`);
    await queryRunner.query(usageFunction([FINE]));
    await queryRunner.query(`ALTER TABLE "audit"."llm_gateway_usage_days" RESET (fillfactor)`);
    await queryRunner.query(`DROP TABLE "audit"."llm_gateway_usage_caller_days"`);
    await queryRunner.query(`DROP TABLE "audit"."llm_gateway_usage_model_days"`);
  }
}
