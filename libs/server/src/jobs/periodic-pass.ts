import { type Logger } from '@fed/observability';

export interface PeriodicPassOptions<T> {
  intervalMs: number;
  logger: Logger;
  /** Logged at info when a pass did something (`done(result)` returns the line's fields), else nothing. */
  done(result: T): Record<string, unknown> | undefined;
  /** The log line of a done pass, and of a failed one (it is retried at the next interval). */
  messages: { done: string; failed: string };
}

/**
 * A background pass a service runs at start and then every interval (sweeps, retention, archiving):
 * a pass already under way is joined, not doubled; `stop()` tells the pass (its `shouldStop`) and waits
 * for it, so the pool and stores it uses outlive it.
 */
export class PeriodicPass<T> {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<T> | undefined;
  private stopped = false;

  constructor(
    private readonly pass: (shouldStop: () => boolean) => Promise<T>,
    private readonly options: PeriodicPassOptions<T>,
  ) {}

  start(): void {
    void this.runLogged();
    this.timer = setInterval(() => void this.runLogged(), this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** One pass (`pass` instead of the usual one, e.g. at a given time); a pass under way is joined. */
  run(pass: (shouldStop: () => boolean) => Promise<T> = this.pass): Promise<T> {
    this.running ??= pass(() => this.stopped).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async runLogged(): Promise<void> {
    try {
      const fields = this.options.done(await this.run());
      if (fields) this.options.logger.info(fields, this.options.messages.done);
    } catch (error) {
      this.options.logger.error({ err: error }, this.options.messages.failed);
    }
  }
}
