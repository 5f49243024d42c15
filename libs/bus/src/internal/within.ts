/**
 * Resolves true once `promise` resolves, false when `timeoutMs` passes or any signal aborts first;
 * a rejection of `promise` is passed on. The timer and abort listeners are removed either way.
 */
export function within(
  promise: Promise<unknown>,
  timeoutMs: number,
  signals: readonly (AbortSignal | undefined)[] = [],
): Promise<boolean> {
  const live = signals.filter((s): s is AbortSignal => s !== undefined);
  if (timeoutMs <= 0 || live.some((s) => s.aborted)) return Promise.resolve(false);
  return new Promise<boolean>((resolve, reject) => {
    let settled = false;
    const cleanup = () => {
      settled = true;
      clearTimeout(timer);
      for (const s of live) s.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      if (settled) return;
      cleanup();
      resolve(false);
    };
    const timer = setTimeout(onAbort, timeoutMs);
    for (const s of live) s.addEventListener('abort', onAbort, { once: true });
    promise.then(
      () => {
        if (settled) return;
        cleanup();
        resolve(true);
      },
      (error: unknown) => {
        if (settled) return;
        cleanup();
        reject(error);
      },
    );
  });
}

/** A monotonic clock in milliseconds (deadlines must not jump with the wall clock). */
export const monotonicNow = (): number => performance.now();
