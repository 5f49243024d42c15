import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { deleteExpiredLogRows } from '../retention/log-retention';

const DAY_MS = 86_400_000;
const TENANTS = [randomUUID(), randomUUID(), null];
const MODELS = ['gpt-5', 'claude', 'demo', null];
const KEYS = [randomUUID(), randomUUID(), null];
const PRINCIPALS = ['api-key:ci', 'api-key:agent', 'client:etl', null];

const pick = <T>(values: readonly T[]): T => values[randomInt(values.length)] as T;
const maybe = <T>(value: T): T | null => (randomInt(5) === 0 ? null : value);

/** A log row as the gateway writes it (the columns the rollup reads, and a few it does not). */
function logRow(dayOffset: number, base: number): Record<string, unknown> {
  const input = maybe(randomInt(5000));
  const output = maybe(randomInt(2000));
  return {
    id: randomUUID(),
    created_at: new Date(base - dayOffset * DAY_MS + randomInt(DAY_MS)).toISOString(),
    tenant_id: pick(TENANTS),
    model_name: pick(MODELS),
    virtual_key_id: pick(KEYS),
    metadata: { principal: pick(PRINCIPALS), requestId: randomUUID() },
    success: pick([true, true, true, false, null]),
    http_status: 200,
    input_tokens: input,
    output_tokens: output,
    total_tokens: input === null || output === null ? null : input + output,
    cached_tokens: maybe(randomInt(1000)),
    cost_usd: maybe((randomInt(10_000_000) / 1e8).toFixed(8)),
  };
}

// The statement of the gateway's writer: one JSON parameter of rows, `ON CONFLICT DO NOTHING` on a retry.
const INSERT = `INSERT INTO "audit"."llm_gateway_logs" ("id", "created_at", "tenant_id", "model_name", "virtual_key_id",
    "metadata", "success", "http_status", "input_tokens", "output_tokens", "total_tokens", "cached_tokens", "cost_usd")
  SELECT "id", "created_at", "tenant_id", "model_name", "virtual_key_id", "metadata", "success", "http_status",
    "input_tokens", "output_tokens", "total_tokens", "cached_tokens", "cost_usd"
  FROM json_populate_recordset(NULL::"audit"."llm_gateway_logs", $1::json)`;

/** Each rollup's bucket columns, as its table names them and as a log row gives them. */
const GRAINS = {
  llm_gateway_usage_days: ['day', 'tenant_id', 'model_name', 'virtual_key_id', 'principal'],
  llm_gateway_usage_model_days: ['day', 'tenant_id', 'model_name'],
  llm_gateway_usage_caller_days: ['day', 'tenant_id', 'virtual_key_id', 'principal'],
} as const;
type Grain = keyof typeof GRAINS;

const bucketsOf = (table: Grain) =>
  GRAINS[table].map((column) => (column === 'day' ? '"day"::text AS "day"' : `"${column}"::text`)).join(', ');
const orderOf = (table: Grain) => `ORDER BY ${GRAINS[table].map((_, i) => i + 1).join(', ')}`;

/** The log summed as a rollup should hold it, bucket by bucket. */
const summedLog = (table: Grain) => `SELECT ${bucketsOf(table)}, count(*)::int AS "requests",
    count(*) FILTER (WHERE "success" IS NOT TRUE)::int AS "errors", coalesce(sum("input_tokens"), 0)::int AS "inputTokens",
    coalesce(sum("output_tokens"), 0)::int AS "outputTokens", coalesce(sum("total_tokens"), 0)::int AS "totalTokens",
    coalesce(sum("cached_tokens"), 0)::int AS "cachedTokens", round(coalesce(sum("cost_usd"), 0), 8)::text AS "costUsd"
  FROM (SELECT ("created_at" AT TIME ZONE 'UTC')::date AS "day", "metadata"->>'principal' AS "principal", "tenant_id",
          "model_name", "virtual_key_id", "success", "input_tokens", "output_tokens", "total_tokens", "cached_tokens",
          "cost_usd"
        FROM "audit"."llm_gateway_logs") AS l
  GROUP BY ${GRAINS[table].map((_, i) => i + 1).join(', ')} ${orderOf(table)}`;

const rollupOf = (table: Grain) => `SELECT ${bucketsOf(table)}, "requests"::int, "errors"::int,
    "input_tokens"::int AS "inputTokens", "output_tokens"::int AS "outputTokens", "total_tokens"::int AS "totalTokens",
    "cached_tokens"::int AS "cachedTokens", round("cost_usd", 8)::text AS "costUsd"
  FROM "audit"."${table}" ${orderOf(table)}`;

const ROLLUP = rollupOf('llm_gateway_usage_days');

describe('the gateway usage rollup (audit.llm_gateway_usage_days, kept by a trigger on the gateway log)', () => {
  let database: TestDatabase;
  const query = <T = Record<string, unknown>>(sql: string, parameters: unknown[] = []) =>
    database.dataSource.query(sql, parameters) as Promise<T[]>;
  const insert = (rows: Record<string, unknown>[]) => query(INSERT, [JSON.stringify(rows)]);
  /** Every rollup holds exactly the log's sums at its grain. */
  async function expectExact(): Promise<void> {
    for (const table of Object.keys(GRAINS) as Grain[]) {
      expect([table, await query(rollupOf(table))]).toEqual([table, await query(summedLog(table))]);
    }
  }

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterAll(async () => {
    await database?.drop();
  });

  beforeEach(async () => {
    await query('DELETE FROM "audit"."llm_gateway_logs"');
    for (const table of Object.keys(GRAINS)) await query(`DELETE FROM "audit"."${table}"`);
  });

  it("adds a statement's rows to their day and bucket: requests, errors (success not true), tokens, exact cost", async () => {
    const [tenant, key] = [randomUUID(), randomUUID()];
    const base = {
      tenant_id: tenant,
      model_name: 'claude',
      virtual_key_id: key,
      metadata: { principal: 'api-key:ci' },
    };
    const row = (overrides: Record<string, unknown>) => ({
      ...base,
      id: randomUUID(),
      created_at: '2026-03-01T23:59:59.999Z',
      http_status: 200,
      ...overrides,
    });
    await insert([
      row({
        success: true,
        input_tokens: 1200,
        output_tokens: 300,
        total_tokens: 1500,
        cached_tokens: 1000,
        cost_usd: '0.00817500',
      }),
      row({ success: false, input_tokens: 10, output_tokens: 0, total_tokens: 10, cost_usd: '0.00000001' }),
      row({ success: null }),
      // The next UTC day, and a bucket of nulls (a call refused before its key and model were read).
      row({
        created_at: '2026-03-02T00:00:00.000Z',
        success: true,
        input_tokens: 5,
        output_tokens: 5,
        total_tokens: 10,
      }),
      {
        id: randomUUID(),
        created_at: '2026-03-02T08:00:00Z',
        success: false,
        http_status: 401,
        metadata: { principal: null },
      },
    ]);
    await insert([row({ success: true, input_tokens: 1, output_tokens: 2, total_tokens: 3, cost_usd: '1.10000000' })]);
    expect(await query(ROLLUP)).toEqual([
      {
        day: '2026-03-01',
        tenant_id: tenant,
        model_name: 'claude',
        virtual_key_id: key,
        principal: 'api-key:ci',
        requests: 4,
        errors: 2,
        inputTokens: 1211,
        outputTokens: 302,
        totalTokens: 1513,
        cachedTokens: 1000,
        costUsd: '1.10817501',
      },
      {
        day: '2026-03-02',
        tenant_id: tenant,
        model_name: 'claude',
        virtual_key_id: key,
        principal: 'api-key:ci',
        requests: 1,
        errors: 0,
        inputTokens: 5,
        outputTokens: 5,
        totalTokens: 10,
        cachedTokens: 0,
        costUsd: '0.00000000',
      },
      {
        day: '2026-03-02',
        tenant_id: null,
        model_name: null,
        virtual_key_id: null,
        principal: null,
        requests: 1,
        errors: 1,
        inputTokens: 0,
        outputTokens: 0,
        totalTokens: 0,
        cachedTokens: 0,
        costUsd: '0.00000000',
      },
    ]);
    await expectExact();
  });

  it('stays exact under concurrent inserts from several writers at once (8 connections, shared buckets, no deadlock)', async () => {
    const writers = 8;
    const statements = 15;
    const clients = await Promise.all(
      Array.from({ length: writers }, async () => {
        const client = new Client({ connectionString: database.url });
        await client.connect();
        return client;
      }),
    );
    const now = Date.now();
    try {
      await Promise.all(
        clients.map(async (client) => {
          for (let i = 0; i < statements; i++) {
            const rows = Array.from({ length: 200 }, () => logRow(randomInt(3), now));
            await client.query(INSERT, [JSON.stringify(rows)]);
          }
        }),
      );
    } finally {
      await Promise.all(clients.map((client) => client.end()));
    }
    const [{ n }] = (await query<{ n: number }>('SELECT count(*)::int AS "n" FROM "audit"."llm_gateway_logs"')) as [
      { n: number },
    ];
    expect(n).toBe(writers * statements * 200);
    const rollup = await query(ROLLUP);
    // Several buckets per day were written by every writer.
    expect(rollup.length).toBeGreaterThan(50);
    await expectExact();
  });

  it('counts a retried batch once: rows that ON CONFLICT DO NOTHING skips add nothing', async () => {
    const rows = Array.from({ length: 50 }, () => logRow(0, Date.now()));
    await insert(rows);
    const once = await query(ROLLUP);
    await query(`${INSERT} ON CONFLICT ("id") DO NOTHING`, [JSON.stringify([...rows, logRow(0, Date.now())])]);
    const summed = await query<{ requests: number }>(ROLLUP);
    expect(summed.reduce((sum, row) => sum + row.requests, 0)).toBe(51);
    await expectExact();
    expect(once.reduce((sum, row) => sum + (row as { requests: number }).requests, 0)).toBe(50);
  });

  it("keeps the usage of rows that retention deletes (the rollup outlives the log's retention)", async () => {
    const now = Date.now();
    // Ten days of rows; retention of 5 days deletes the older half, in batches.
    await insert(Array.from({ length: 400 }, (_, i) => logRow(i % 10, now)));
    await expectExact();
    const snapshot = () => Promise.all((Object.keys(GRAINS) as Grain[]).map((table) => query(rollupOf(table))));
    const before = await snapshot();
    const deleted = await deleteExpiredLogRows(database.dataSource, 'gateway', 5, { now, batchRows: 50 });
    expect(deleted).toBeGreaterThan(100);
    const [{ n }] = (await query<{ n: number }>('SELECT count(*)::int AS "n" FROM "audit"."llm_gateway_logs"')) as [
      { n: number },
    ];
    expect(n).toBe(400 - deleted);
    expect(await snapshot()).toEqual(before);
    // Rows written after the deletion are added to the same days as before.
    await insert([logRow(0, now)]);
    const after = await query<{ requests: number }>(ROLLUP);
    expect(after.reduce((sum, row) => sum + row.requests, 0)).toBe(401);
  });

  it("cuts texts too long for an index entry, so that no log row can fail the log's insert", async () => {
    // Random, so that the index cannot compress them below its limit (about 2,700 bytes).
    const long = randomBytes(2500).toString('hex');
    await insert([
      { ...logRow(0, Date.now()), model_name: long, metadata: { principal: long } },
      { ...logRow(0, Date.now()), model_name: `${long}y`, metadata: { principal: long } },
    ]);
    const buckets = await query<{ model: string; principal: string; requests: number }>(
      `SELECT "model_name" AS "model", "principal", sum("requests")::int AS "requests"
         FROM "audit"."llm_gateway_usage_days" GROUP BY 1, 2`,
    );
    expect(buckets).toEqual([{ model: long.slice(0, 200), principal: long.slice(0, 200), requests: 2 }]);
    expect(
      await query(
        `SELECT "model_name" AS "model", sum("requests")::int AS "requests" FROM "audit"."llm_gateway_usage_model_days" GROUP BY 1`,
      ),
    ).toEqual([{ model: long.slice(0, 200), requests: 2 }]);
    expect(
      await query(
        `SELECT "principal", sum("requests")::int AS "requests" FROM "audit"."llm_gateway_usage_caller_days" GROUP BY 1`,
      ),
    ).toEqual([{ principal: long.slice(0, 200), requests: 2 }]);
  });
});
