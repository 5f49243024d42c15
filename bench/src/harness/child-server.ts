import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { testServiceUrls } from '@fed/config';
import { freePort } from '@fed/testing';

export { freePort };

export interface ChildServer {
  url: string;
  /** The server's own process (node itself, no shell in between): its memory is `/proc/<pid>/status`. */
  pid: number;
  stop(): Promise<void>;
}

/** Starts a server in its own process (so it has its own core) and waits until it answers. */
export async function startChildServer(options: {
  script: string;
  args?: string[];
  env?: Record<string, string>;
  port: number;
  /** Polled until it answers 200 (default `/healthz`). */
  readyPath?: string;
  readyTimeoutMs?: number;
}): Promise<ChildServer> {
  // BENCH_CHILD_LOG=<file>: the servers' own log (stdout) is appended there, to see why a run went wrong.
  const logFile = process.env.BENCH_CHILD_LOG ? openSync(process.env.BENCH_CHILD_LOG, 'a') : undefined;
  const child: ChildProcess = spawn(process.execPath, [options.script, ...(options.args ?? [])], {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', logFile ?? 'ignore', 'pipe'],
  });
  if (logFile !== undefined) closeSync(logFile);
  if (child.pid === undefined) throw new Error(`${options.script} could not be started`);
  const pid = child.pid;
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const url = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${options.script} exited with ${child.exitCode}: ${stderr}`);
    try {
      const res = await fetch(`${url}${options.readyPath ?? '/healthz'}`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${options.script} was not ready within the timeout: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    url,
    pid,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(killer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/** `getconf CLK_TCK`: 100 on every Linux Node runs on. */
const CLOCK_TICKS = 100;

/**
 * A process's resident memory (VmRSS) and its peak so far (VmHWM) in KiB, and the CPU time it has
 * used (user + system) in seconds, from `/proc` (Linux).
 */
export function processUsage(pid: number): { rssKiB: number; peakKiB: number; cpuSeconds: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? NaN);
  // Fields 14 and 15 of /proc/<pid>/stat, counted after the command name (which may hold spaces).
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const [utime, stime] = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .slice(11, 13)
    .map(Number);
  return {
    rssKiB: field('VmRSS'),
    peakKiB: field('VmHWM'),
    cpuSeconds: ((utime ?? NaN) + (stime ?? NaN)) / CLOCK_TICKS,
  };
}

/**
 * One of our apps from dist in its own process, on a free port, trusting a test issuer's tokens (its JWKS at
 * `jwksUrl`), with Redis, a quiet log and no access log (the benchmark's own requests would grow it under
 * measurement); `env` adds to or overrides that. Ready once `/readyz` answers.
 */
export async function startAppWithTestIssuer(options: {
  distRoot: string;
  app: 'chat-service' | 'admin-service';
  databaseUrl: string;
  issuerUrl: string;
  jwksUrl: string;
  env?: Record<string, string>;
}): Promise<ChildServer> {
  const port = await freePort();
  return startChildServer({
    script: path.join(options.distRoot, `apps/${options.app}/src/main.js`),
    env: {
      DATABASE_URL: options.databaseUrl,
      REDIS_URL: testServiceUrls().redisUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      AUTH_URL: options.issuerUrl.replace(/\/realms\/federation$/, ''),
      AUTH_JWKS_URL: options.jwksUrl,
      LOG_LEVEL: 'warn',
      ACCESS_LOG_ENABLED: 'false',
      ...options.env,
    },
    port,
    readyPath: '/readyz',
    readyTimeoutMs: 60_000,
  });
}

/** The middle value (the upper one of an even count); 0 for none. */
export const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
