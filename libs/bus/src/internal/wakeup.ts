import { monotonicNow, within } from './within';

/**
 * A latch a blocking reader waits on. A notification that arrives while the reader is busy
 * (e.g. fetching) is kept, so the reader's next wait returns at once instead of missing it.
 */
export class Wakeup {
  private pending = false;
  private wake: (() => void) | undefined;

  notify(): void {
    this.pending = true;
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** Forgets notifications so far: call right before looking for new data. */
  clear(): void {
    this.pending = false;
  }

  /** True when notified (now or before the deadline), false at the deadline or on abort. */
  async next(deadline: number, signals: readonly (AbortSignal | undefined)[]): Promise<boolean> {
    if (this.pending) {
      this.pending = false;
      return true;
    }
    const notified = new Promise<void>((resolve) => (this.wake = resolve));
    const woke = await within(notified, deadline - monotonicNow(), signals);
    this.wake = undefined;
    if (woke) this.pending = false;
    return woke;
  }
}
