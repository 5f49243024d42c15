import { monotonicNow } from './within';

const ONCE = { once: true } as const;
const NO_SIGNALS: readonly AbortSignal[] = [];

function expire(wakeup: Wakeup): void {
  wakeup.settle(false);
}

/**
 * A latch a blocking reader waits on. A notification that arrives while the reader is busy is kept,
 * so its next wait returns at once. Idle streams wait long, so a wait holds no per-wait closures.
 */
export class Wakeup {
  private pending = false;
  private resolve: ((woke: boolean) => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private signals: readonly (AbortSignal | undefined)[] = NO_SIGNALS;
  private onAbort: (() => void) | undefined;

  notify(): void {
    this.pending = true;
    this.settle(true);
  }

  /** Call right before looking for new data. */
  clear(): void {
    this.pending = false;
  }

  /** True when notified, false at the deadline or on abort. */
  next(deadline: number, signals: readonly (AbortSignal | undefined)[]): Promise<boolean> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve(true);
    }
    const timeoutMs = deadline - monotonicNow();
    if (timeoutMs <= 0 || signals.some((signal) => signal?.aborted)) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      this.resolve = resolve;
      this.timer = setTimeout(expire, timeoutMs, this);
      this.onAbort ??= () => this.settle(false);
      this.signals = signals;
      for (const signal of signals) signal?.addEventListener('abort', this.onAbort, ONCE);
    });
  }

  settle(woke: boolean): void {
    const resolve = this.resolve;
    if (!resolve) return;
    this.resolve = undefined;
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const signal of this.signals) signal?.removeEventListener('abort', this.onAbort as () => void);
    this.signals = NO_SIGNALS;
    if (woke) this.pending = false;
    resolve(woke);
  }
}
