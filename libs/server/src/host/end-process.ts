export const END_PROCESS_GRACE_MS = 1000;

/**
 * Sets the exit code and lets the event loop empty instead of calling `process.exit()` at once: Node 24
 * can deadlock in `process.exit()` while V8 compiles in the background (nodejs/node#54918, #64274). Only a
 * process still held after `graceMs` is cut short.
 */
export function endProcess(code: number, graceMs = END_PROCESS_GRACE_MS): void {
  process.exitCode = code;
  setTimeout(() => process.exit(code), graceMs).unref();
}
