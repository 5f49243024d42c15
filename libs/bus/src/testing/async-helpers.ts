import { type RunJob } from '@fed/contracts';
import { randomUUID } from 'node:crypto';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it holds; fails the test with `what` when it does not within `timeoutMs`. */
export async function eventually(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 3000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await sleep(10);
  }
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

export async function resolvesWithin<T>(what: string, promise: Promise<T>, timeoutMs = 3000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function runJob(overrides: Partial<RunJob> = {}): RunJob {
  return {
    version: 1,
    runId: randomUUID(),
    conversationId: randomUUID(),
    userId: `user-${randomUUID()}`,
    requestedAt: new Date().toISOString(),
    ...overrides,
  };
}

/** Both implementations hand out `<ms>-<seq>`. */
export function offsetKey(offset: string): bigint {
  const [ms, seq] = offset.split('-');
  return (BigInt(ms) << 64n) + BigInt(seq);
}
