export interface CounterState {
  count: number;
  /** Seconds until the window ends and the count starts again from 0 (0 when absent). */
  resetInSeconds: number;
}

/**
 * Counts events per key in a fixed window that starts at the key's first event: rate limits, quotas,
 * failed logins. Shared by every instance (Redis) or by the process (in-process).
 */
export interface Counters {
  /** Adds one to `key`; a new key's window is `windowSeconds` long (an existing window is not extended). */
  hit(key: string, windowSeconds: number): Promise<CounterState>;
  /** Like hit(), adding `amount` (a positive integer: tokens, micro-dollars) instead of one. */
  add(key: string, amount: number, windowSeconds: number): Promise<CounterState>;
  peek(key: string): Promise<CounterState>;
  /** `peek` of several keys in one round trip, in order. */
  peekMany(keys: readonly string[]): Promise<CounterState[]>;
  reset(key: string): Promise<void>;
  close(): Promise<void>;
}
