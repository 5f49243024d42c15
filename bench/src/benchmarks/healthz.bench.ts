import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, startChildServer } from '../harness/child-server';
import { measureLatency } from '../harness/latency';
import { type Row, printTable, writeResult } from '../harness/report';
import { measureThroughput } from '../harness/throughput';
import { type Benchmark } from './benchmark';

/** `/healthz` through the all-in-one platform against a bare Node HTTP server: what the stack costs. */
export const healthzBenchmark: Benchmark = {
  name: 'healthz',
  description:
    '/healthz of the all-in-one platform vs a bare node:http server (latency at concurrency 1, throughput at 50 connections)',
  async run({ distRoot, resultsDir, quick }) {
    const durationMs = quick ? 2000 : 8000;
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'fed-bench-'));
    const targets = [
      {
        name: 'bare node:http',
        script: path.join(distRoot, 'bench/src/servers/bare-http.js'),
        env: {} as Record<string, string>,
      },
      {
        name: 'platform (all-in-one)',
        script: path.join(distRoot, 'apps/platform/src/main.js'),
        env: { DATA_DIR: dataDir, LOG_LEVEL: 'warn' } as Record<string, string>,
      },
    ];
    const measured = [];
    try {
      for (const target of targets) {
        const port = await freePort();
        const server = await startChildServer({
          script: target.script,
          args: [String(port)],
          env: { ...target.env, PORT: String(port) },
          port,
          readyTimeoutMs: 60_000,
        });
        try {
          const latency = await measureLatency(`${server.url}/healthz`, { durationMs, warmupMs: 1000 });
          const throughput = await measureThroughput(`${server.url}/healthz`, {
            connections: 50,
            durationSeconds: Math.round(durationMs / 1000),
          });
          measured.push({ target: target.name, latency, throughput });
        } finally {
          await server.stop();
        }
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }

    const [bare, platform] = measured as [(typeof measured)[0], (typeof measured)[0]];
    const rows: Row[] = measured.map((m) => ({
      target: m.target,
      'c1 p50 µs': m.latency.p50,
      'c1 p99 µs': m.latency.p99,
      'c1 p99.9 µs': m.latency.p999,
      'c50 req/s': m.throughput.requestsPerSecond,
      'c50 p99 ms': m.throughput.p99,
      errors: m.throughput.errors + m.throughput.non2xx,
    }));
    const ratio = {
      target: 'ratio platform / bare',
      'c1 p50 µs': (platform.latency.p50 / bare.latency.p50).toFixed(2),
      'c1 p99 µs': (platform.latency.p99 / bare.latency.p99).toFixed(2),
      'c1 p99.9 µs': (platform.latency.p999 / bare.latency.p999).toFixed(2),
      'c50 req/s': (platform.throughput.requestsPerSecond / bare.throughput.requestsPerSecond).toFixed(2),
      'c50 p99 ms': (platform.throughput.p99 / Math.max(bare.throughput.p99, 1)).toFixed(2),
      errors: '',
    };
    printTable('healthz: all-in-one platform vs bare node:http', [...rows, ratio]);
    const file = writeResult(resultsDir, 'healthz', { durationMs, measured, ratio });
    process.stdout.write(`written ${file}\n`);
  },
};
