import { testServiceUrls } from '@fed/config';
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, startChildServer } from '../harness/child-server';
import { inGeneratorProcess } from '../harness/generator-process';
import { type Row, printTable, writeResult } from '../harness/report';
import { withScratchDatabase } from '../harness/scratch-database';
import { measureSaturated } from '../harness/wrk';
import { type Benchmark } from './benchmark';

/** Idle before each open-loop run: the run before it has ended (its log rows are written every second). */
const SETTLE_MS = 2000;

/** NODE_OPTIONS of the options given, or nothing (the bench's own NODE_OPTIONS passes on). */
function nodeOptions(...options: (string | undefined | false)[]): { NODE_OPTIONS?: string } {
  const joined = options.filter(Boolean).join(' ').trim();
  return joined ? { NODE_OPTIONS: joined } : {};
}

/**
 * Client-credentials tokens from auth-service as it is deployed: its own process, the machine's
 * PostgreSQL and Redis (design budget: > 1,000/s, p99 < 20 ms at half that load).
 */
export const tokenBenchmark: Benchmark = {
  name: 'token',
  description:
    'POST /federation/auth/v1/token, client_credentials with client_secret_basic, auth-service on PostgreSQL and Redis',
  run: ({ distRoot, resultsDir, quick }) =>
    withScratchDatabase(async (databaseUrl) => {
      const seconds = quick ? 2 : 8;
      const serviceEnv = {
        DATABASE_URL: databaseUrl,
        REDIS_URL: testServiceUrls().redisUrl,
        REDIS_KEY_PREFIX: `bench:${randomUUID().slice(0, 8)}:`,
        KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        LOG_LEVEL: 'warn',
      };
      const env = { ...process.env, ...serviceEnv };
      execFileSync(process.execPath, [path.join(distRoot, 'apps/platformctl/src/main.js'), 'migrate'], { env });
      const created = execFileSync(
        process.execPath,
        [
          path.join(distRoot, 'apps/platformctl/src/main.js'),
          'clients',
          'create',
          '--client-id',
          'bench',
          '--name',
          'Bench',
          '--grant',
          'client_credentials',
          '--scope',
          'users:read',
        ],
        { env, encoding: 'utf8' },
      );
      const secret = /^client_secret: (\S+)$/m.exec(created)?.[1];
      if (!secret) throw new Error(`no client secret in: ${created}`);
      const port = await freePort();
      const server = await startChildServer({
        script: path.join(distRoot, 'apps/auth-service/src/main.js'),
        env: {
          ...serviceEnv,
          PORT: String(port),
          HOST: '127.0.0.1',
          // BENCH_TOKEN_NODE_OPTIONS: V8 or Node options of auth-service (`--trace-gc`, say).
          // BENCH_TOKEN_CPU_PROFILE=<file>: auth-service writes a V8 CPU profile of the whole run there.
          ...nodeOptions(
            process.env.BENCH_TOKEN_NODE_OPTIONS,
            process.env.BENCH_TOKEN_CPU_PROFILE &&
              `--require ${path.join(distRoot, 'bench/src/harness/cpu-profile-preload.js')}`,
          ),
          ...(process.env.BENCH_TOKEN_CPU_PROFILE
            ? { FED_BENCH_CPU_PROFILE: path.resolve(process.env.BENCH_TOKEN_CPU_PROFILE) }
            : {}),
        },
        port,
        readyPath: '/readyz',
        readyTimeoutMs: 60_000,
      });
      const request = {
        method: 'POST' as const,
        headers: {
          Authorization: `Basic ${Buffer.from(`bench:${secret}`).toString('base64')}`,
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
      };
      const url = `${server.url}/federation/auth/v1/token`;
      try {
        const latency = await inGeneratorProcess('latency', url, {
          durationMs: seconds * 1000,
          warmupMs: 1000,
          request,
        });
        const saturated = await measureSaturated(url, { connections: 50, durationSeconds: seconds, ...request });
        const halfRate = Math.max(1, Math.round(saturated.requestsPerSecond / 2));
        // Evenly spaced arrivals at half the saturated rate, and at the budget's 500/s: each after a
        // pause (the saturated run's last work done: its log rows written, its garbage collected) and
        // a second at its rate unmeasured, so that a figure is the steady state at that load, not the
        // way out of the run before it (which had put up to 190 ms into the first second).
        const openLoop = async (rate: number) => {
          await sleep(SETTLE_MS);
          return inGeneratorProcess('openLoop', url, {
            rate,
            durationSeconds: seconds,
            warmupSeconds: 1,
            connections: 50,
            request,
          });
        };
        const half = await openLoop(halfRate);
        const budget = await openLoop(500);
        for (const run of [half, budget]) {
          if (run.errorKinds)
            process.stdout.write(`not answered 2xx at ${run.requestsPerSecond}/s: ${JSON.stringify(run.errorKinds)}\n`);
        }
        const rows: Row[] = [
          {
            load: 'concurrency 1',
            'tokens/s': Math.round(latency.requests / seconds),
            'p50 ms': (latency.p50 / 1000).toFixed(2),
            'p99 ms': (latency.p99 / 1000).toFixed(2),
            errors: 0,
          },
          {
            load: `50 connections, as fast as possible (${saturated.generator})`,
            'tokens/s': saturated.requestsPerSecond,
            'p50 ms': saturated.p50,
            'p99 ms': saturated.p99,
            errors: saturated.errors + saturated.non2xx,
          },
          ...[
            { load: `open loop at ${halfRate}/s (half), evenly spaced`, run: half },
            { load: 'open loop at 500/s, evenly spaced', run: budget },
          ].map(({ load, run }) => ({
            load,
            'tokens/s': run.requestsPerSecond,
            'p50 ms': (run.p50 / 1000).toFixed(2),
            'p99 ms': (run.p99 / 1000).toFixed(2),
            errors: run.errors + run.non2xx,
          })),
        ];
        printTable('token: client-credentials tokens (each signs an access token and an ID token, RS256)', rows);
        process.stdout.write(
          `written ${writeResult(resultsDir, 'token', { seconds, latency, saturated, half, budget })}\n`,
        );
      } finally {
        await server.stop();
      }
    }),
};
