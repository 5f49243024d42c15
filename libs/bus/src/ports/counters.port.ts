export interface CounterState {
  count: number;
  /** 0 when absent. */
  resetInSeconds: number;
}

export interface TakeResult extends CounterState {
  /** False when already at the limit: nothing was counted. */
  taken: boolean;
}

/** Fixed window from the key's first event; shared by every instance on Redis. */
export interface Counters {
  /** An existing window is not extended. */
  hit(key: string, windowSeconds: number): Promise<CounterState>;
  add(key: string, amount: number, windowSeconds: number): Promise<CounterState>;
  /** Atomic: concurrent takes never pass the limit, unlike a peek followed by a hit. */
  take(key: string, limit: number, windowSeconds: number): Promise<TakeResult>;
  /** Never below zero; at zero the key goes. */
  release(key: string): Promise<void>;
  /** Atomic; never shortens the window, and creates the key with a count of 1 when absent. */
  extend(key: string, seconds: number): Promise<CounterState>;
  peek(key: string): Promise<CounterState>;
  peekMany(keys: readonly string[]): Promise<CounterState[]>;
  reset(key: string): Promise<void>;
  close(): Promise<void>;
}
