import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ThroughputResult, measureThroughput } from './throughput';

/** Debian's `wrk`, when installed: a load generator in C, one thread. */
export function wrkAvailable(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    // wrk --version exits 1 after printing its version; only a missing binary is ENOENT.
    return (error as { code?: string }).code !== 'ENOENT';
  }
}

const luaString = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/**
 * Saturated throughput with the lightest load generator at hand. On a two-core machine the
 * generator takes its CPU from the server under test: wrk (C, one thread) takes far less than
 * autocannon (Node), so it is used when installed (`apt-get install wrk`), autocannon otherwise.
 */
export async function measureSaturated(
  url: string,
  options: {
    connections: number;
    durationSeconds: number;
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string;
  },
): Promise<ThroughputResult & { generator: 'wrk' | 'autocannon' }> {
  if (!wrkAvailable()) return { ...(await measureThroughput(url, options)), generator: 'autocannon' };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fed-bench-wrk-'));
  try {
    const script = path.join(dir, 'request.lua');
    const lines = [`wrk.method = ${luaString(options.method ?? 'GET')}`];
    if (options.body !== undefined) lines.push(`wrk.body = ${luaString(options.body)}`);
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      lines.push(`wrk.headers[${luaString(name)}] = ${luaString(value)}`);
    }
    writeFileSync(script, `${lines.join('\n')}\n`);
    const run = spawnSync(
      'wrk',
      ['-t1', `-c${options.connections}`, `-d${options.durationSeconds}s`, '--latency', '-s', script, url],
      { encoding: 'utf8' },
    );
    if (run.status !== 0) throw new Error(`wrk failed: ${run.stderr}`);
    const out = run.stdout;
    const number = (pattern: RegExp) => Number(pattern.exec(out)?.[1] ?? 0);
    const millis = (percentile: string) => {
      const match = new RegExp(`^\\s+${percentile}%\\s+([\\d.]+)(us|ms|s)$`, 'm').exec(out);
      if (!match) return 0;
      const value = Number(match[1]);
      return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
    };
    const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
    return {
      connections: options.connections,
      requestsPerSecond: Math.round(number(/Requests\/sec:\s+([\d.]+)/)),
      p50: millis('50'),
      p99: millis('99'),
      non2xx: number(/Non-2xx or 3xx responses: (\d+)/),
      errors: socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
      generator: 'wrk',
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
