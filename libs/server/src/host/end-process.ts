/** How long a process that was told to end may take to end by itself before it is cut short. */
export const END_PROCESS_GRACE_MS = 1000;

/**
 * Ends the process with `code` without calling `process.exit()` at once: Node 24 can deadlock in
 * `process.exit()` when V8 is compiling in the background at that moment (a Maglev or Sparkplug job waits
 * for a garbage collection that the exiting main thread never runs; nodejs/node#54918, #64274; seen here as
 * a `platformctl` that printed its error and never exited). The exit code is set and the process ends by
 * itself once its event loop is empty, which lets those jobs finish; only a process still held by some
 * handle after `graceMs` is cut short with `process.exit()`, by when no compile job of its last moment is
 * still running.
 */
export function endProcess(code: number, graceMs = END_PROCESS_GRACE_MS): void {
  process.exitCode = code;
  setTimeout(() => process.exit(code), graceMs).unref();
}
