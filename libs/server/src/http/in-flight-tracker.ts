import { type IncomingMessage, type ServerResponse } from 'node:http';

/** Counts requests still being answered, so shutdown can wait for them to finish. */
export class InFlightTracker {
  private count = 0;
  private waiters: (() => void)[] = [];

  get inFlight(): number {
    return this.count;
  }

  middleware() {
    return (_req: IncomingMessage, res: ServerResponse, next: () => void) => {
      this.track(res);
      next();
    };
  }

  /** Counts `res` until it closes. */
  track(res: ServerResponse): void {
    this.count++;
    // 'close' fires for finished and for aborted responses alike, exactly once.
    res.once('close', () => {
      this.count--;
      if (this.count === 0) this.waiters.splice(0).forEach((wake) => wake());
    });
  }

  /** Resolves true when no request is open, false if `timeoutMs` passed first. */
  drained(timeoutMs: number): Promise<boolean> {
    if (this.count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== wake);
        resolve(false);
      }, timeoutMs);
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.waiters.push(wake);
    });
  }
}
