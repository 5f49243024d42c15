import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

export { freePort } from '@fed/testing';

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
  const child: ChildProcess = spawn(process.execPath, [options.script, ...(options.args ?? [])], {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
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
