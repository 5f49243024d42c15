import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, startChildServer } from '../harness/child-server';
import { type Row, printTable, writeResult } from '../harness/report';
import { type Benchmark } from './benchmark';

/** From process start to `/readyz` answering 200, for the all-in-one platform (design budget: < 10 s warm). */
async function timeToReady(script: string, dataDir: string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const server = await startChildServer({
    script,
    env: { DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' },
    port,
    readyPath: '/readyz',
    readyTimeoutMs: 60_000,
  });
  const elapsed = performance.now() - started;
  await server.stop();
  return Math.round(elapsed);
}

export const startupBenchmark: Benchmark = {
  name: 'startup',
  description: 'all-in-one platform, process start to /readyz 200: first start (empty data directory) and later starts',
  async run({ distRoot, resultsDir, quick }) {
    const script = path.join(distRoot, 'apps/platform/src/main.js');
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'fed-bench-startup-'));
    try {
      const first = await timeToReady(script, dataDir);
      const later: number[] = [];
      for (let i = 0; i < (quick ? 1 : 3); i++) later.push(await timeToReady(script, dataDir));
      const rows: Row[] = [
        { start: 'first (empty data directory: initdb, migrations)', 'ms to ready': first },
        ...later.map((ms, i) => ({ start: `again #${i + 1} (data directory reused)`, 'ms to ready': ms })),
      ];
      printTable('startup: all-in-one platform to ready', rows);
      process.stdout.write(`written ${writeResult(resultsDir, 'startup', { first, later })}\n`);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
