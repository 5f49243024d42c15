// First, so that every module loaded after it is compiled from (and into) the cache.
import './compile-cache';
import 'reflect-metadata';
import { failureOf } from './failures';
import { buildProgram } from './program';
import { endProcess } from '@fed/server';

buildProgram()
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    const { exitCode, message } = failureOf(error);
    if (message !== undefined) process.stderr.write(`${message}\n`);
    endProcess(exitCode);
  });
