/** False when `timeoutMs` passes or a signal aborts first; a rejection is passed on. */
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

/** Monotonic: deadlines must not jump with the wall clock. */
export const monotonicNow = (): number => performance.now();
