import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export type AppName = 'chat-service' | 'agent-runtime' | 'llm-gateway' | 'admin-service';

/** Variables of the runner's own environment that would change a service's mode; never passed on. */
const INHERITED_MODE = ['DATABASE_URL', 'REDIS_URL', 'REDIS_KEY_PREFIX', 'PORT', 'HOST', 'DATA_DIR', 'PUBLIC_URL'];

/**
 * One of our apps from dist in a process of its own, as a deployment runs it: killed with a signal of
 * the scenario's choosing, its last output kept for the report when it fails.
 */
export class ServiceProcess {
  private output = '';
  private readonly exit: Promise<number | null>;

  private constructor(
    readonly app: AppName,
    readonly name: string,
    readonly url: string,
    private readonly child: ChildProcess,
  ) {
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-20_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.exit = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ? null : code)));
    // A run stopped early (Ctrl-C, an exception) leaves no service behind.
    const killAtExit = () => child.kill('SIGKILL');
    process.once('exit', killAtExit);
    child.once('exit', () => process.off('exit', killAtExit));
  }

  /** Starts the app on `port` and waits until its `/readyz` answers 200. */
  static async start(options: {
    distRoot: string;
    app: AppName;
    /** Shown in failures: `chat-service#2`. */
    name: string;
    port: number;
    env: Record<string, string>;
    readyTimeoutMs?: number;
  }): Promise<ServiceProcess> {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of INHERITED_MODE) delete env[name];
    const child = spawn(process.execPath, [path.join(options.distRoot, `apps/${options.app}/src/main.js`)], {
      env: {
        ...env,
        HOST: '127.0.0.1',
        PORT: String(options.port),
        LOG_LEVEL: 'warn',
        ACCESS_LOG_ENABLED: 'false',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (child.pid === undefined) throw new Error(`${options.name} could not be started`);
    const service = new ServiceProcess(options.app, options.name, `http://127.0.0.1:${options.port}`, child);
    await service.waitReady(options.readyTimeoutMs ?? 60_000);
    return service;
  }

  get pid(): number {
    return this.child.pid as number;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  lastOutput(): string {
    return this.output.slice(-3000);
  }

  /** Sends `signal` (SIGKILL: a crash; SIGTERM: an orchestrator's stop). */
  kill(signal: NodeJS.Signals): void {
    if (this.running) this.child.kill(signal);
  }

  /** Resolves with the exit code (null when a signal ended it), or 'timeout'. */
  async exited(timeoutMs: number): Promise<number | null | 'timeout'> {
    return Promise.race([this.exit, sleep(timeoutMs, 'timeout' as const, { ref: false })]);
  }

  /** SIGTERM, then SIGKILL after `graceMs`: how the suite cleans up. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.kill('SIGTERM');
    if ((await this.exited(graceMs)) === 'timeout') {
      this.kill('SIGKILL');
      await this.exited(5000);
    }
  }

  private async waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.running) throw new Error(`${this.name} exited while starting:\n${this.lastOutput()}`);
      try {
        const res = await fetch(`${this.url}/readyz`, { signal: AbortSignal.timeout(2000) });
        await res.body?.cancel();
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        this.kill('SIGKILL');
        throw new Error(`${this.name} was not ready within ${timeoutMs} ms:\n${this.lastOutput()}`);
      }
      await sleep(50);
    }
  }
}
