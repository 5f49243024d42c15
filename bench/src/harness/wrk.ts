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

const luaString = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;

export interface WrkRequest {
  connections: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

export interface WrkRun {
  /** wrk's output, for lines a script of its own printed. */
  out: string;
  /** Answers read, any status. */
  answered: number;
  requestsPerSecond: number;
  /** Milliseconds. */
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/**
 * Runs wrk (one thread) for `seconds` with the request written as a Lua script, followed by
 * `script` (more Lua) and given `scriptArgs`, and reads its summary.
 */
export function runWrk(
  url: string,
  request: WrkRequest,
  seconds: number,
  script = '',
  scriptArgs: string[] = [],
): WrkRun {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fed-bench-wrk-'));
  try {
    const file = path.join(dir, 'request.lua');
    const lines = [`wrk.method = ${luaString(request.method ?? 'GET')}`];
    if (request.body !== undefined) lines.push(`wrk.body = ${luaString(request.body)}`);
    for (const [name, value] of Object.entries(request.headers ?? {})) {
      lines.push(`wrk.headers[${luaString(name)}] = ${luaString(value)}`);
    }
    writeFileSync(file, `${lines.join('\n')}\n${script}`);
    const args = ['-t1', `-c${request.connections}`, `-d${seconds}s`, '--latency', '-s', file, url];
    if (scriptArgs.length > 0) args.push('--', ...scriptArgs);
    const run = spawnSync('wrk', args, { encoding: 'utf8' });
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
      out,
      answered: number(/^\s*(\d+) requests in /m),
      requestsPerSecond: Math.round(number(/Requests\/sec:\s+([\d.]+)/)),
      p50: millis('50'),
      p99: millis('99'),
      // wrk counts statuses above 399 as "Non-2xx or 3xx responses".
      non2xx: number(/Non-2xx or 3xx responses: (\d+)/),
      errors: socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Saturated throughput with the lightest load generator at hand. On a two-core machine the
 * generator takes its CPU from the server under test: wrk (C, one thread) takes far less than
 * autocannon (Node), so it is used when installed (`apt-get install wrk`), autocannon otherwise.
 */
export async function measureSaturated(
  url: string,
  options: WrkRequest & { durationSeconds: number },
): Promise<ThroughputResult & { generator: 'wrk' | 'autocannon' }> {
  if (!wrkAvailable()) return { ...(await measureThroughput(url, options)), generator: 'autocannon' };
  const { requestsPerSecond, p50, p99, non2xx, errors } = runWrk(url, options, options.durationSeconds);
  return { connections: options.connections, requestsPerSecond, p50, p99, non2xx, errors, generator: 'wrk' };
}
