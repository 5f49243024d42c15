import { fork } from 'node:child_process';
import path from 'node:path';
import { type GeneratorJobs } from './generator-child';

/**
 * Runs one measurement of the harness in a load-generator process of its own (generator-child.ts),
 * as a load generator should be: apart from the benchmark's process, whose heap holds the platform's
 * libraries, so that none of its pauses fall into the figures. Resolves with what the measurement
 * returns (plain data), rejects with its error.
 */
export function inGeneratorProcess<K extends keyof GeneratorJobs>(
  job: K,
  ...args: Parameters<GeneratorJobs[K]>
): ReturnType<GeneratorJobs[K]> {
  const child = fork(path.join(__dirname, 'generator-child.js'), [], {
    // None of the benchmark's own options (a preload, a profiler) in the generator.
    execArgv: [],
    env: { ...process.env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  return new Promise<unknown>((resolve, reject) => {
    let settled = false;
    child.once('message', (message: { result?: unknown; error?: string }) => {
      settled = true;
      if (message.error !== undefined) reject(new Error(`load generator: ${message.error}`));
      else resolve(message.result);
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (!settled) reject(new Error(`load generator exited (${signal ?? code}) before it answered`));
    });
    child.send({ job, args });
  }) as unknown as ReturnType<GeneratorJobs[K]>;
}
