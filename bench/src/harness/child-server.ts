import { type ChildProcess, spawn } from 'node:child_process';

export { freePort } from '@fed/testing';

export interface ChildServer {
  url: string;
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
