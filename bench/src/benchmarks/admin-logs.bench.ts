import { JwksServer, TestTokenIssuer } from '@fed/auth/testing';
import { testServiceUrls } from '@fed/config';
import { runMigrations } from '@fed/persistence';
import path from 'node:path';
import { type ChildServer, freePort, startChildServer } from '../harness/child-server';
import { type LatencyResult, measureLatency } from '../harness/latency';
import { type Row, printTable, writeResult } from '../harness/report';
import { runSql, withScratchDatabase } from '../harness/scratch-database';
import { type Benchmark, type BenchmarkContext } from './benchmark';

/** Issue 17: a page of an admin log at 10^6 rows within 1.5x of its p99 at 10^3. */
const GOAL_RATIO = 1.5;
const DAYS = 30;
const DAY_MS = 86_400_000;

/** Audit rows spread evenly over the last DAYS days, inserted in statements of 100,000 (the day counts follow). */
async function fillAuditLog(databaseUrl: string, from: number, to: number): Promise<void> {
  const now = Date.now();
  for (let start = from; start < to; start += 100_000) {
    const end = Math.min(to, start + 100_000);
    await runSql(
      databaseUrl,
      `INSERT INTO "audit"."audit_logs" ("id", "resource", "action", "meta", "user_id", "user_email", "ip_address", "user_agent", "created_at")
       SELECT gen_random_uuid(), 'users/show', 'approve', jsonb_build_object('userId', i::text), 'admin-' || (i % 7),
              'admin@example.com', '10.0.0.1', 'bench', to_timestamp(($1::bigint - (i * $2::bigint) % $3::bigint) / 1000.0)
       FROM generate_series($4::int, $5::int - 1) AS i`,
      [now, 7919, DAYS * DAY_MS, start, end],
    );
  }
  await runSql(databaseUrl, 'VACUUM ANALYZE "audit"."audit_logs"');
}

async function run({ distRoot, resultsDir, quick }: BenchmarkContext, databaseUrl: string): Promise<void> {
  const durationMs = quick ? 2000 : 8000;
  const warmupMs = quick ? 500 : 2000;
  const large = quick ? 100_000 : 1_000_000;
  const issuer = await TestTokenIssuer.create();
  const jwks = await JwksServer.start(() => issuer.jwks());
  let admin: ChildServer | undefined;
  try {
    await runMigrations(databaseUrl);
    const port = await freePort();
    admin = await startChildServer({
      script: path.join(distRoot, 'apps/admin-service/src/main.js'),
      env: {
        DATABASE_URL: databaseUrl,
        REDIS_URL: testServiceUrls().redisUrl,
        HOST: '127.0.0.1',
        PORT: String(port),
        AUTH_URL: issuer.issuer.replace(/\/realms\/federation$/, ''),
        AUTH_JWKS_URL: jwks.url,
        LOG_LEVEL: 'warn',
      },
      port,
      readyPath: '/readyz',
      readyTimeoutMs: 60_000,
    });
    const token = await issuer.mint({ scope: 'logs:read' });
    const request = { headers: { authorization: `Bearer ${token}` } };
    const day = new Date(Date.now() - 3 * DAY_MS).toISOString().slice(0, 10);
    const queries = {
      'first page': '',
      'one day, page 2': `?from=${day}&to=${day}&page=2`,
    };
    const measure = async () => {
      const results: Record<string, LatencyResult> = {};
      for (const [name, query] of Object.entries(queries)) {
        results[name] = await measureLatency(`${admin?.url}/api/v1/admin/audit-logs${query}`, {
          durationMs,
          warmupMs,
          request,
        });
      }
      return results;
    };

    await fillAuditLog(databaseUrl, 0, 1000);
    const small = await measure();
    await fillAuditLog(databaseUrl, 1000, large);
    const big = await measure();

    const ms = (us: number) => (us / 1000).toFixed(2);
    const rows: Row[] = Object.keys(queries).map((name) => {
      const ratio = (big[name]?.p99 ?? 0) / (small[name]?.p99 ?? 1);
      return {
        query: `GET /v1/admin/audit-logs ${name}`,
        'p99 at 10^3, ms': ms(small[name]?.p99 ?? 0),
        [`p99 at 10^${Math.log10(large)}, ms`]: ms(big[name]?.p99 ?? 0),
        ratio: `${ratio.toFixed(2)}x`,
        goal: `<= ${GOAL_RATIO}x`,
        verdict: ratio <= GOAL_RATIO ? 'ok' : 'MISSED',
      };
    });
    printTable('admin-logs: audit log list p99, concurrency 1 (admin-service, its own process)', rows);
    const file = writeResult(resultsDir, 'admin-logs', {
      quick,
      rows: { small: 1000, large },
      small,
      big,
      table: rows,
    });
    process.stdout.write(`written ${file}\n`);
  } finally {
    await admin?.stop();
    await jwks.close();
    await issuer.close();
  }
}

/**
 * A page of the audit log through admin-service as deployed, at 10^3 and 10^6 rows over 30 days:
 * the first page (no range) and the second page of one day.
 */
export const adminLogsBenchmark: Benchmark = {
  name: 'admin-logs',
  description: 'GET /api/v1/admin/audit-logs p99 at 10^3 and 10^6 rows (ratio <= 1.5)',
  run: (context) => withScratchDatabase((databaseUrl) => run(context, databaseUrl)),
};
