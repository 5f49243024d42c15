export interface CounterState {
  count: number;
  /** Seconds until the window ends and the count starts again from 0 (0 when absent). */
  resetInSeconds: number;
}

export interface TakeResult extends CounterState {
  /** False when the count was already at the limit: nothing was counted. */
  taken: boolean;
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
  /**
   * One atomic step: refuses without counting when the count is already `limit` or more, else adds one
   * as hit() does. Concurrent takes never pass the limit, unlike a peek followed by a hit.
   */
  take(key: string, limit: number, windowSeconds: number): Promise<TakeResult>;
  /** Gives back one taken unit: the count goes down by one, never below zero (at zero the key goes). */
  release(key: string): Promise<void>;
  /**
   * Makes the key's window end no sooner than `seconds` from now, atomically: never shortens it, and
   * creates the key with a count of 1 when absent (holds that only ever grow).
   */
  extend(key: string, seconds: number): Promise<CounterState>;
  peek(key: string): Promise<CounterState>;
  /** `peek` of several keys in one round trip, in order. */
  peekMany(keys: readonly string[]): Promise<CounterState[]>;
  reset(key: string): Promise<void>;
  close(): Promise<void>;
}
