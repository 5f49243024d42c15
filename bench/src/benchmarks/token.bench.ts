import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, startChildServer } from '../harness/child-server';
import { measureLatency } from '../harness/latency';
import { type Row, printTable, writeResult } from '../harness/report';
import { measureThroughput } from '../harness/throughput';
import { type Benchmark } from './benchmark';

/** Client-credentials tokens from the all-in-one platform (design budget: > 1,000/s, p99 < 20 ms at half that load). */
export const tokenBenchmark: Benchmark = {
  name: 'token',
  description:
    'POST /federation/auth/v1/token, client_credentials with client_secret_basic, all-in-one platform (embedded database)',
  async run({ distRoot, resultsDir, quick }) {
    const seconds = quick ? 2 : 8;
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'fed-bench-token-'));
    const env = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    try {
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
        script: path.join(distRoot, 'apps/platform/src/main.js'),
        env: { DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' },
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
        const latency = await measureLatency(url, { durationMs: seconds * 1000, warmupMs: 1000, request });
        const saturated = await measureThroughput(url, { connections: 50, durationSeconds: seconds, ...request });
        const halfRate = Math.max(1, Math.round(saturated.requestsPerSecond / 2));
        const half = await measureThroughput(url, {
          connections: 50,
          durationSeconds: seconds,
          overallRate: halfRate,
          ...request,
        });
        const rows: Row[] = [
          {
            load: 'concurrency 1',
            'tokens/s': Math.round(latency.requests / seconds),
            'p50 ms': (latency.p50 / 1000).toFixed(2),
            'p99 ms': (latency.p99 / 1000).toFixed(2),
            errors: 0,
          },
          {
            load: '50 connections, as fast as possible',
            'tokens/s': saturated.requestsPerSecond,
            'p50 ms': saturated.p50,
            'p99 ms': saturated.p99,
            errors: saturated.errors + saturated.non2xx,
          },
          {
            load: `50 connections at ${halfRate}/s (half)`,
            'tokens/s': half.requestsPerSecond,
            'p50 ms': half.p50,
            'p99 ms': half.p99,
            errors: half.errors + half.non2xx,
          },
        ];
        printTable('token: client-credentials tokens (each signs an access token and an ID token, RS256)', rows);
        process.stdout.write(`written ${writeResult(resultsDir, 'token', { seconds, latency, saturated, half })}\n`);
      } finally {
        await server.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
