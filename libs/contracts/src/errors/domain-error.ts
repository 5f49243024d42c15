import { ApiError } from './api-error';
import { type ErrorCode } from './error-code';

export type DomainErrorTable = Readonly<Record<string, ErrorCode>>;

/** A code of the lib's own (what `platformctl` prints) and a message safe to show. */
export abstract class DomainError<Code extends string = string> extends Error {
  protected abstract readonly apiCodes: Readonly<Record<Code, ErrorCode>>;

  constructor(
    readonly code: Code,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }

  toApiError(): ApiError {
    return new ApiError(this.apiCodes[this.code], this.message);
  }
}

/**
 * A code is written once and cannot lack an answer:
 * `class UsersError extends domainErrors({ user_not_found: 'not_found' }) {}`.
 */
export function domainErrors<const Table extends DomainErrorTable>(table: Table) {
  abstract class LibError extends DomainError<Extract<keyof Table, string>> {
    /** For tests and documentation. */
    static readonly apiCodes = table;
    protected readonly apiCodes = table;
  }
  return LibError;
}
