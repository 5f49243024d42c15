import { CommanderError } from 'commander';
import { ConfigError } from '@fed/config';
import { ApiError, DomainError } from '@fed/contracts';
import { RealmError } from '@fed/identity';

export interface Failure {
  exitCode: number;
  /** For standard error; absent when commander has already said it. */
  message?: string;
}

/** How a command that threw ends: the one place platformctl turns errors into exit codes and messages. */
export function failureOf(error: unknown): Failure {
  if (error instanceof CommanderError) return { exitCode: error.exitCode };
  if (error instanceof ConfigError) return { exitCode: 78, message: error.message };
  // Refusals are the operator's input, not a failure of the tool: the lib's own code says why.
  if (error instanceof DomainError || error instanceof ApiError) {
    return { exitCode: 1, message: `refused (${error.code}): ${error.message}` };
  }
  // A realm file's problems, one per line, each with its path in the file.
  if (error instanceof RealmError) return { exitCode: 1, message: error.message };
  return { exitCode: 1, message: `platformctl: ${error instanceof Error ? error.message : String(error)}` };
}
