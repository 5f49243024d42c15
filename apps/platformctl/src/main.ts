// First, so that every module loaded after it is compiled from (and into) the cache.
import './compile-cache';
import 'reflect-metadata';
import { buildProgram } from './program';
import { endProcess } from '@fed/server/end-process';

// Required on failure only: it names the libraries' error classes, so it loads their modules.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const failureOf = (error: unknown) => (require('./failures') as typeof import('./failures')).failureOf(error);

new Promise<void>((resolve) =>
  resolve(
    buildProgram()
      .parseAsync(process.argv)
      .then(() => undefined),
  ),
).catch((error: unknown) => {
  const { exitCode, message } = failureOf(error);
  if (message !== undefined) process.stderr.write(`${message}\n`);
  endProcess(exitCode);
});
