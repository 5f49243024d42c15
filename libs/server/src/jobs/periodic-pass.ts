import { type Logger } from '@fed/observability';

export interface PeriodicPassOptions<T> {
  intervalMs: number;
  logger: Logger;
  /** Fields of the info line when a pass did something; undefined logs nothing. */
  done(result: T): Record<string, unknown> | undefined;
  /** A failed pass is retried at the next interval. */
  messages: { done: string; failed: string };
}

/** A pass under way is joined, not doubled; `stop()` waits for it, so the resources it uses outlive it. */
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

  /** `pass` replaces the usual one (e.g. at a given time); a pass under way is joined. */
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
