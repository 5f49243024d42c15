import { type IncomingMessage, type ServerResponse } from 'node:http';

/** So shutdown can wait for open requests. */
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

  track(res: ServerResponse): void {
    this.count++;
    // 'close' fires for finished and for aborted responses alike, exactly once.
    res.once('close', () => {
      this.count--;
      if (this.count === 0) this.waiters.splice(0).forEach((wake) => wake());
    });
  }

  /** False if `timeoutMs` passed first. */
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
