import { JwksServer, TEST_TENANT_ID, TestTokenIssuer } from '@fed/auth/testing';
import { runMigrations } from '@fed/persistence';
import { median, startAppWithTestIssuer } from '../harness/child-server';
import { type LatencyResult, measureLatency } from '../harness/latency';
import { type Row, printTable, writeResult } from '../harness/report';
import { testServiceUrls } from '@fed/config';
import { runSql, withScratchDatabase } from '../harness/scratch-database';
import { type Benchmark, type BenchmarkContext } from './benchmark';

/** Issue 38: usage over a month at 10^7 gateway log rows in under 50 ms p99. */
const GOAL_P99_MS = 50;
/** The log as it stands with GATEWAY_LOG_RETENTION_DAYS' default. */
const DAYS = 90;
const DAY_MS = 86_400_000;
const STATEMENT_ROWS = 100_000;
/** The gateway writer's batch: the write cost of the trigger is measured on statements of this size. */
const WRITER_BATCH = 500;

// 60 virtual keys and 6 client-credentials callers, each of one of three tenants or of none (the operator's), and
// 8 models: 528 buckets a day, about 47,500 rollup rows over the 90 days.
const CALLERS = 66;
const KEYS = 60;
const caller = 'i % 66';
const TENANT = `(ARRAY['${TEST_TENANT_ID}', '00000000-0000-4000-8000-00000000000b', '00000000-0000-4000-8000-00000000000c', NULL])[(${caller}) % 4 + 1]`;
const MODEL = `(ARRAY['gpt-5', 'gpt-5-mini', 'claude-sonnet-4-5', 'claude-haiku-4-5', 'gemini-2.5-pro', 'llama-4', 'mistral-large', 'demo'])[(i / ${CALLERS}) % 8 + 1]`;
const KEY = `CASE WHEN ${caller} < ${KEYS} THEN ('00000000-0000-4000-8000-' || lpad((${caller})::text, 12, '0'))::uuid END`;
const PRINCIPAL = `CASE WHEN ${caller} < ${KEYS} THEN 'api-key:key-' || (${caller}) ELSE 'client:etl-' || (${caller} - ${KEYS}) END`;

/**
 * Rows `$4`..`$5 - 1` of `$3`, spread evenly over the DAYS days before `$1` (epoch ms), oldest first, with every
 * column the gateway writes; `$2` is the span in ms. One statement: the usage trigger sums it once.
 */
const INSERT_ROWS = `INSERT INTO "audit"."llm_gateway_logs" ("id", "created_at", "virtual_key_id", "client_session_id",
    "client_agent_id", "api_flavor", "model_name", "resolved_model", "provider", "deployment", "tier", "stream", "success",
    "http_status", "error_type", "usage_status", "latency_ms", "input_tokens", "output_tokens", "total_tokens",
    "cached_tokens", "cost_usd", "currency", "metadata", "tenant_id")
  SELECT gen_random_uuid(), to_timestamp(($1::bigint - ($2::bigint * ($3::bigint - i)) / $3::bigint) / 1000.0), ${KEY},
    'session-' || (i % 5000), 'bench/1.0', 'chat-completions', ${MODEL}, ${MODEL} || '-2026', 'openai', 'openai/primary',
    'standard', i % 2 = 0, i % 50 <> 0, CASE WHEN i % 50 = 0 THEN 502 ELSE 200 END,
    CASE WHEN i % 50 = 0 THEN 'api_error' END, 'reported', 300 + i % 700, 500 + i % 1500, 100 + i % 400,
    600 + i % 1500 + i % 400, (i % 3) * 100, ((500 + i % 1500) * 0.0000025 + (100 + i % 400) * 0.00001)::numeric(18, 8),
    'USD', jsonb_build_object('requestId', 'req-' || i, 'principal', ${PRINCIPAL}, 'attempts', 1), ${TENANT}
  FROM generate_series($4::bigint, $5::bigint - 1) AS i`;

/** 10^7 log rows; 2 x 10^5 in a `--quick` run. */
const rowCount = (quick: boolean) => (quick ? 200_000 : 10_000_000);

const ms = (us: number) => (us / 1000).toFixed(2);

/**
 * `BENCH_GATEWAY_USAGE_KEEP=1`: the loaded database is kept under this name and a later run with the same setting
 * measures it again without loading (the load takes minutes); without it, a scratch database, dropped afterwards.
 */
const KEPT_DATABASE = 'fed_bench_gateway_usage';
const KEEP = process.env.BENCH_GATEWAY_USAGE_KEEP === '1';

/** What a load left in a kept database, for the runs that reuse it. */
interface LoadRecord {
  rows: number;
  /** Epoch ms the rows end at. */
  now: number;
  loadSeconds: number;
  differences: number;
  exactSeconds: number;
  write: { with: number; without: number };
}

async function loadRecord(url: string, rows: number): Promise<LoadRecord | undefined> {
  const [exists] = await runSql<{ t: string | null }>(
    url,
    `SELECT to_regclass('public.bench_gateway_usage_load')::text AS "t"`,
  );
  if (!exists?.t) return undefined;
  const [row] = await runSql<{ record: LoadRecord }>(url, 'SELECT "record" FROM "public"."bench_gateway_usage_load"');
  return row?.record.rows === rows ? row.record : undefined;
}

/** The kept database (made afresh when it holds no complete load of `rows`), or a scratch one. */
async function withBenchDatabase<T>(rows: number, work: (url: string, kept?: LoadRecord) => Promise<T>): Promise<T> {
  if (!KEEP) return withScratchDatabase((url) => work(url));
  const admin = testServiceUrls().databaseUrl;
  const url = new URL(admin);
  url.pathname = `/${KEPT_DATABASE}`;
  const [present] = await runSql<{ n: string }>(
    admin,
    'SELECT count(*)::text AS "n" FROM "pg_database" WHERE "datname" = $1',
    [KEPT_DATABASE],
  );
  const kept = present?.n === '1' ? await loadRecord(url.toString(), rows) : undefined;
  if (!kept) {
    await runSql(admin, `DROP DATABASE IF EXISTS "${KEPT_DATABASE}" WITH (FORCE)`);
    await runSql(admin, `CREATE DATABASE "${KEPT_DATABASE}"`);
  }
  return work(url.toString(), kept);
}

/** The three day rollups and their bucket columns (as a log row gives them). */
const ROLLUPS = {
  llm_gateway_usage_days: ['day', 'tenant_id', 'model_name', 'virtual_key_id', 'principal'],
  llm_gateway_usage_model_days: ['day', 'tenant_id', 'model_name'],
  llm_gateway_usage_caller_days: ['day', 'tenant_id', 'virtual_key_id', 'principal'],
} as const;
const FROM_LOG: Record<string, string> = {
  day: `("created_at" AT TIME ZONE 'UTC')::date`,
  tenant_id: '"tenant_id"',
  model_name: '"model_name"',
  virtual_key_id: '"virtual_key_id"',
  principal: `"metadata"->>'principal'`,
};
const SUMS = `count(*) AS "requests", count(*) FILTER (WHERE "success" IS NOT TRUE) AS "errors",
  coalesce(sum("input_tokens"), 0) AS "input_tokens", coalesce(sum("output_tokens"), 0) AS "output_tokens",
  coalesce(sum("total_tokens"), 0) AS "total_tokens", coalesce(sum("cached_tokens"), 0) AS "cached_tokens",
  coalesce(sum("cost_usd"), 0) AS "cost_usd"`;
const FIGURES = '"requests", "errors", "input_tokens", "output_tokens", "total_tokens", "cached_tokens", "cost_usd"';

/** The log's rows (`where` them) summed at a rollup's grain, in its columns. */
function summedLog(columns: readonly string[], where = 'true'): string {
  const positions = columns.map((_, i) => i + 1).join(', ');
  return `SELECT ${columns.map((column) => `${FROM_LOG[column]} AS "${column}"`).join(', ')}, ${SUMS}
    FROM "audit"."llm_gateway_logs" WHERE ${where} GROUP BY ${positions}`;
}

async function load(url: string, rows: number, now: number): Promise<number> {
  const started = performance.now();
  for (let start = 0; start < rows; start += STATEMENT_ROWS) {
    await runSql(url, INSERT_ROWS, [now, DAYS * DAY_MS, rows, start, Math.min(rows, start + STATEMENT_ROWS)]);
    const done = Math.min(rows, start + STATEMENT_ROWS);
    if (done % (rows / 10) === 0 || done === rows)
      process.stdout.write(
        `  ${done.toLocaleString('en')} rows, ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
      );
  }
  return (performance.now() - started) / 1000;
}

/**
 * What the trigger costs a writer: statements of WRITER_BATCH rows (the gateway writer's), alternately with the
 * usage trigger and without it, on the full table. Median milliseconds per statement of each.
 */
async function writeCost(url: string, now: number, rounds: number): Promise<{ with: number; without: number }> {
  const times = { with: [] as number[], without: [] as number[] };
  let next = 0;
  for (let round = 0; round < rounds; round++) {
    for (const kind of ['with', 'without'] as const) {
      if (kind === 'without')
        await runSql(url, 'ALTER TABLE "audit"."llm_gateway_logs" DISABLE TRIGGER "llm_gateway_logs_usage_insert"');
      for (let i = 0; i < 10; i++) {
        const started = performance.now();
        // Rows of this moment: they land on today's buckets, as the writer's do.
        await runSql(url, INSERT_ROWS, [now, 0, 1, next, next + WRITER_BATCH]);
        times[kind].push(performance.now() - started);
        next += WRITER_BATCH;
      }
      if (kind === 'without')
        await runSql(url, 'ALTER TABLE "audit"."llm_gateway_logs" ENABLE TRIGGER "llm_gateway_logs_usage_insert"');
    }
  }
  return { with: median(times.with), without: median(times.without) };
}

/** Every bucket of each rollup against a GROUP BY of the whole log at its grain: 0 when the three are exact. */
async function rollupDifferences(url: string): Promise<number> {
  let differences = 0;
  for (const [table, columns] of Object.entries(ROLLUPS)) {
    const rolled = `SELECT ${columns.map((column) => `"${column}"`).join(', ')}, ${FIGURES} FROM "audit"."${table}"`;
    const summed = summedLog(columns);
    const [row] = await runSql<{ n: string }>(
      url,
      `SELECT ((SELECT count(*) FROM (${summed} EXCEPT ${rolled}) AS a) + (SELECT count(*) FROM (${rolled} EXCEPT ${summed}) AS b))::text AS "n"`,
    );
    differences += Number(row?.n);
  }
  return differences;
}

async function run({ distRoot, resultsDir, quick }: BenchmarkContext, url: string, kept?: LoadRecord): Promise<void> {
  const rows = rowCount(quick);
  const durationMs = quick ? 1000 : 5000;
  const rounds = quick ? 1 : 3;
  await runMigrations(url);
  let record: LoadRecord;
  if (kept) {
    record = kept;
    process.stdout.write(
      `reusing ${KEPT_DATABASE}: ${rows.toLocaleString('en')} rows loaded up to ${new Date(kept.now).toISOString()}\n`,
    );
  } else {
    const now = Date.now();
    process.stdout.write(`loading ${rows.toLocaleString('en')} gateway log rows over ${DAYS} days\n`);
    const loadSeconds = await load(url, rows, now);
    const write = await writeCost(url, now, quick ? 1 : 5);
    // Today's buckets again from the log (as the migrations' backfills sum), with the rows written without the trigger.
    const today = `"created_at" >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`;
    for (const [table, columns] of Object.entries(ROLLUPS)) {
      await runSql(url, `DELETE FROM "audit"."${table}" WHERE "day" = (now() AT TIME ZONE 'UTC')::date`);
      await runSql(
        url,
        `INSERT INTO "audit"."${table}" (${columns.map((column) => `"${column}"`).join(', ')}, ${FIGURES}) ${summedLog(columns, today)}`,
      );
    }
    const exactStarted = performance.now();
    const differences = await rollupDifferences(url);
    const exactSeconds = (performance.now() - exactStarted) / 1000;
    for (const table of ['llm_gateway_logs', ...Object.keys(ROLLUPS)])
      await runSql(url, `VACUUM ANALYZE "audit"."${table}"`);
    await runSql(url, 'CHECKPOINT');
    record = { rows, now, loadSeconds, differences, exactSeconds, write };
    if (KEEP) {
      await runSql(url, 'CREATE TABLE "public"."bench_gateway_usage_load" ("record" jsonb NOT NULL)');
      await runSql(url, 'INSERT INTO "public"."bench_gateway_usage_load" ("record") VALUES ($1)', [
        JSON.stringify(record),
      ]);
    }
  }
  const { now, loadSeconds, differences, exactSeconds, write } = record;
  const [counts] = await runSql<{ logRows: string; rollupRows: string; modelRows: string; callerRows: string }>(
    url,
    `SELECT (SELECT count(*) FROM "audit"."llm_gateway_logs")::text AS "logRows",
            (SELECT count(*) FROM "audit"."llm_gateway_usage_days")::text AS "rollupRows",
            (SELECT count(*) FROM "audit"."llm_gateway_usage_model_days")::text AS "modelRows",
            (SELECT count(*) FROM "audit"."llm_gateway_usage_caller_days")::text AS "callerRows"`,
  );
  process.stdout.write(
    `loaded in ${loadSeconds.toFixed(0)} s (${Math.round(rows / loadSeconds).toLocaleString('en')} rows/s); ` +
      `${Number(counts?.logRows).toLocaleString('en')} log rows, ${Number(counts?.rollupRows).toLocaleString('en')} ` +
      `fine rollup rows (${Number(counts?.modelRows).toLocaleString('en')} by model, ` +
      `${Number(counts?.callerRows).toLocaleString('en')} by caller); the three rollups against a GROUP BY of the log ` +
      `(${exactSeconds.toFixed(0)} s): ${differences} differences\n` +
      `a writer's statement of ${WRITER_BATCH} rows: ${write.with.toFixed(1)} ms with the usage trigger, ` +
      `${write.without.toFixed(1)} ms without (median)\n`,
  );

  const issuer = await TestTokenIssuer.create();
  const jwks = await JwksServer.start(() => issuer.jwks());
  const admin = await startAppWithTestIssuer({
    distRoot,
    app: 'admin-service',
    databaseUrl: url,
    issuerUrl: issuer.issuer,
    jwksUrl: jwks.url,
    // No retention pass during the measurement.
    env: { GATEWAY_LOG_RETENTION_DAYS: '0', AUDIT_LOG_RETENTION_DAYS: '0', ACCESS_LOG_RETENTION_DAYS: '0' },
  });
  try {
    const to = new Date(now).toISOString().slice(0, 10);
    const from = new Date(now - 29 * DAY_MS).toISOString().slice(0, 10);
    // A token of its own per case: a whole run takes longer than a token lives.
    const readers = {
      // The platform operator's integration: a service account of no tenant.
      'operator (every tenant)': () =>
        issuer.mint(
          {
            scope: 'platform:manage',
            azp: 'platform-operator',
            preferred_username: 'service-account-platform-operator',
            realm_access: { roles: ['M2M'] },
          },
          { omit: ['tenant', 'sid', 'auth_time'] },
        ),
      // An admin of the first tenant.
      'tenant admin (logs:read)': () => issuer.mint({ scope: 'logs:read', realm_access: { roles: ['admin'] } }),
    };
    // The endpoint's totals against a count of the log itself over the same days, once.
    const [logged] = await runSql<{ n: string }>(
      url,
      `SELECT count(*)::text AS "n" FROM "audit"."llm_gateway_logs"
        WHERE "created_at" >= $1::date AND "created_at" < $2::date + 1`,
      [from, to],
    );
    const check = await fetch(`${admin.url}/api/v1/admin/gateway-usage?from=${from}&to=${to}&groupBy=model`, {
      headers: { authorization: `Bearer ${await readers['operator (every tenant)']()}` },
    });
    const checked = (await check.json()) as { totals?: { requests: number }; days?: unknown[] };
    if (check.status !== 200 || checked.totals?.requests !== Number(logged?.n))
      throw new Error(`usage totals ${JSON.stringify(checked).slice(0, 300)} differ from the log's ${logged?.n} rows`);
    process.stdout.write(
      `a month (${from}..${to}) by model: ${checked.totals.requests.toLocaleString('en')} requests, the log's own count; ` +
        `${checked.days?.length} day rows\n`,
    );

    const results: Record<string, LatencyResult[]> = {};
    const table: Row[] = [];
    // Each reader's month by model, key and user, then with filters: a tenant by model (the model rollup), a model by
    // key or user (the fine rollup, every tenant's buckets for the operator), a caller by model (the fine rollup).
    const cases: { reader: keyof typeof readers; groupBy: string; filter?: Record<string, string> }[] = [];
    for (const reader of Object.keys(readers) as (keyof typeof readers)[])
      for (const groupBy of ['model', 'key', 'user']) cases.push({ reader, groupBy });
    cases.push(
      {
        reader: 'operator (every tenant)',
        groupBy: 'model',
        filter: { tenantId: '00000000-0000-4000-8000-00000000000b' },
      },
      { reader: 'operator (every tenant)', groupBy: 'user', filter: { model: 'gpt-5' } },
      { reader: 'operator (every tenant)', groupBy: 'model', filter: { user: 'client:etl-0' } },
      { reader: 'tenant admin (logs:read)', groupBy: 'key', filter: { model: 'claude-sonnet-4-5' } },
      { reader: 'tenant admin (logs:read)', groupBy: 'model', filter: { user: 'api-key:key-0' } },
    );
    for (const { reader, groupBy, filter } of cases) {
      const filterText = Object.entries(filter ?? {})
        .map(([name, value]) => `${name}=${value}`)
        .join('&');
      const key = `${reader} ${groupBy}${filterText ? ` ${filterText}` : ''}`;
      const query = new URLSearchParams({ from, to, groupBy, ...filter }).toString();
      results[key] = [];
      for (let round = 0; round < rounds; round++) {
        const request = { headers: { authorization: `Bearer ${await readers[reader]()}` } };
        results[key].push(
          await measureLatency(`${admin.url}/api/v1/admin/gateway-usage?${query}`, {
            durationMs,
            warmupMs: round === 0 ? 1000 : 250,
            request,
          }),
        );
      }
      const p99 = median(results[key].map((result) => result.p99)) / 1000;
      table.push({
        reader,
        groupBy,
        filter: filterText || '-',
        requests: results[key].reduce((sum, result) => sum + result.requests, 0),
        'p50, ms': ms(median(results[key].map((result) => result.p50))),
        'p99, ms': p99.toFixed(2),
        goal: `< ${GOAL_P99_MS}`,
        verdict: p99 < GOAL_P99_MS ? 'ok' : 'MISSED',
      });
    }
    printTable(
      `gateway-usage: GET /api/v1/admin/gateway-usage over 30 days at ${rows.toLocaleString('en')} log rows, ` +
        `concurrency 1, median of ${rounds} turns of ${durationMs / 1000} s`,
      table,
    );
    const file = writeResult(resultsDir, 'gateway-usage', {
      quick,
      rows,
      days: DAYS,
      loadSeconds,
      rollupRows: {
        fine: Number(counts?.rollupRows),
        model: Number(counts?.modelRows),
        caller: Number(counts?.callerRows),
      },
      reused: kept !== undefined,
      rollupDifferences: differences,
      writerStatementMs: write,
      results,
      table,
    });
    process.stdout.write(`written ${file}\n`);
  } finally {
    await admin.stop();
    await jwks.close();
    await issuer.close();
  }
}

/**
 * Gateway usage per day from the rollup that the log's trigger keeps: 10^7 log rows over 90 days loaded through the
 * trigger (statements of 100,000 rows), the rollups checked against the log, then a month's usage by model, key and
 * user, and with a tenant, model or caller filter, as the operator and as a tenant's admin, over HTTP from
 * admin-service. `BENCH_GATEWAY_USAGE_KEEP=1` keeps the loaded database for the next run.
 */
export const gatewayUsageBenchmark: Benchmark = {
  name: 'gateway-usage',
  description: 'GET /api/v1/admin/gateway-usage p99 over a month at 10^7 gateway log rows (< 50 ms)',
  run: (context) => withBenchDatabase(rowCount(context.quick), (url, kept) => run(context, url, kept)),
};
