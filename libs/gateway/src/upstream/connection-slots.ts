export class UpstreamBusyError extends Error {
  constructor(
    readonly provider: string,
    readonly waitedMs: number,
  ) {
    super(`every connection to provider ${provider} stayed busy for ${Math.round(waitedMs / 1000)} s`);
    this.name = 'UpstreamBusyError';
  }
}

interface Waiter {
  grant(): void;
  settled: boolean;
}

/**
 * A call holds its slot until its answer's body is over; calls beyond the cap wait in order, each at most
 * `timeoutMs`, rather than behind long streams for ever (undici's pool queue has no such limit).
 */
export class ConnectionSlots {
  private inFlight = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    private readonly provider: string,
    readonly capacity: number,
  ) {}

  get busy(): number {
    return this.inFlight;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** The release is safe to call more than once. */
  acquire(timeoutMs: number, signal: AbortSignal): Promise<() => void> {
    signal.throwIfAborted();
    if (this.inFlight < this.capacity && this.waiting.length === 0) {
      this.inFlight++;
      return Promise.resolve(this.releaser());
    }
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        settled: false,
        grant: () => {
          settle();
          this.inFlight++;
          resolve(this.releaser());
        },
      };
      const timer = setTimeout(() => {
        settle();
        reject(new UpstreamBusyError(this.provider, performance.now() - started));
      }, timeoutMs);
      const onAbort = () => {
        settle();
        reject(signal.reason);
      };
      const settle = () => {
        waiter.settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight--;
      this.waiting.find((waiter) => !waiter.settled)?.grant();
    };
  }
}
