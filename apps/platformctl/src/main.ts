import 'reflect-metadata';
import { CommanderError } from 'commander';
import { ConfigError } from '@fed/config';
import { buildProgram } from './program';

buildProgram()
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    if (error instanceof CommanderError) process.exit(error.exitCode);
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    process.stderr.write(`platformctl: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
