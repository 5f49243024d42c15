/** A dependency the instance needs to serve traffic (PostgreSQL, Redis). */
export interface ReadinessCheck {
  name: string;
  /** Rejects with a message safe to show (no credentials). */
  check(): Promise<void>;
}

export interface CheckResult {
  status: 'ok' | 'failing';
  latencyMs: number;
  error?: string;
}

export interface Readiness {
  status: 'ok' | 'unavailable';
  checks: Record<string, CheckResult>;
}

const CHECK_TIMEOUT_MS = 2000;

export class Health {
  private readonly checks: ReadinessCheck[] = [];
  private shuttingDown = false;

  register(check: ReadinessCheck): void {
    this.checks.push(check);
  }

  /** Readiness fails so load balancers stop sending new requests while we drain. */
  markShuttingDown(): void {
    this.shuttingDown = true;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  async readiness(): Promise<Readiness> {
    const entries = await Promise.all(this.checks.map(async (c) => [c.name, await runCheck(c)] as const));
    const checks = Object.fromEntries(entries);
    const ok = !this.shuttingDown && entries.every(([, r]) => r.status === 'ok');
    return { status: ok ? 'ok' : 'unavailable', checks };
  }
}

async function runCheck(check: ReadinessCheck): Promise<CheckResult> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check.check(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return { status: 'ok', latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { status: 'failing', latencyMs: Math.round(performance.now() - started), error: message };
  } finally {
    clearTimeout(timer);
  }
}
