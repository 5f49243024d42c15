import { type CounterState, type Counters, type TakeResult } from '../ports';

const SWEEP_MS = 60_000;

export class MemoryCounters implements Counters {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();
  private readonly sweep: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly now: () => number = Date.now) {
    // Keys come from requests: without a sweep they would only ever grow.
    this.sweep = setInterval(() => this.dropExpired(), SWEEP_MS).unref();
  }

  hit(key: string, windowSeconds: number): Promise<CounterState> {
    return this.add(key, 1, windowSeconds);
  }

  async add(key: string, amount: number, windowSeconds: number): Promise<CounterState> {
    this.assertOpen();
    checkWindow(windowSeconds);
    checkAmount(amount);
    const now = this.now();
    let window = this.live(key, now);
    if (!window) this.windows.set(key, (window = { count: 0, endsAt: now + windowSeconds * 1000 }));
    window.count += amount;
    return stateOf(window, now);
  }

  async take(key: string, limit: number, windowSeconds: number): Promise<TakeResult> {
    this.assertOpen();
    checkLimit(limit);
    checkWindow(windowSeconds);
    const now = this.now();
    const window = this.live(key, now);
    if (window && window.count >= limit) return { taken: false, ...stateOf(window, now) };
    return { taken: true, ...(await this.add(key, 1, windowSeconds)) };
  }

  async release(key: string): Promise<void> {
    this.assertOpen();
    const window = this.live(key, this.now());
    if (window && --window.count <= 0) this.windows.delete(key);
  }

  async extend(key: string, seconds: number): Promise<CounterState> {
    this.assertOpen();
    checkWindow(seconds);
    const now = this.now();
    const endsAt = now + seconds * 1000;
    let window = this.live(key, now);
    if (!window) this.windows.set(key, (window = { count: 1, endsAt }));
    window.endsAt = Math.max(window.endsAt, endsAt);
    return stateOf(window, now);
  }

  async peek(key: string): Promise<CounterState> {
    this.assertOpen();
    const now = this.now();
    const window = this.live(key, now);
    return window ? stateOf(window, now) : { count: 0, resetInSeconds: 0 };
  }

  async peekMany(keys: readonly string[]): Promise<CounterState[]> {
    return Promise.all(keys.map((key) => this.peek(key)));
  }

  async reset(key: string): Promise<void> {
    this.assertOpen();
    this.windows.delete(key);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweep);
    this.windows.clear();
  }

  private live(key: string, now: number) {
    const window = this.windows.get(key);
    if (window && window.endsAt <= now) {
      this.windows.delete(key);
      return undefined;
    }
    return window;
  }

  private dropExpired(): void {
    const now = this.now();
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('counters are closed');
  }
}

function stateOf(window: { count: number; endsAt: number }, now: number): CounterState {
  return { count: window.count, resetInSeconds: Math.ceil((window.endsAt - now) / 1000) };
}

export function checkWindow(windowSeconds: number): void {
  if (!Number.isInteger(windowSeconds) || windowSeconds < 1)
    throw new RangeError('windowSeconds must be a positive integer');
}

export function checkAmount(amount: number): void {
  if (!Number.isSafeInteger(amount) || amount < 1) throw new RangeError('amount must be a positive integer');
}

export function checkLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
}
