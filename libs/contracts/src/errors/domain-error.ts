import { ApiError } from './api-error';
import { type ErrorCode } from './error-code';

/** One lib's refusal codes, each with the REST API's code (and so status) it answers with. */
export type DomainErrorTable = Readonly<Record<string, ErrorCode>>;

/**
 * An operation a domain lib refused: a code of the lib's own (what `platformctl` prints) and a
 * message safe to show. The exception filter answers it through the lib's table.
 */
export abstract class DomainError<Code extends string = string> extends Error {
  protected abstract readonly apiCodes: Readonly<Record<Code, ErrorCode>>;

  constructor(
    readonly code: Code,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }

  /** The refusal as the REST API answers it: the exception filter renders this. */
  toApiError(): ApiError {
    return new ApiError(this.apiCodes[this.code], this.message);
  }
}

/**
 * The base class of one lib's errors, from its table: the table's keys are the lib's codes, so a
 * code is written once and cannot lack an answer: `class UsersError extends domainErrors({ user_not_found: 'not_found' }) {}`.
 */
export function domainErrors<const Table extends DomainErrorTable>(table: Table) {
  abstract class LibError extends DomainError<Extract<keyof Table, string>> {
    /** The lib's table, for whoever lists what each code answers (tests, documentation). */
    static readonly apiCodes = table;
    protected readonly apiCodes = table;
  }
  return LibError;
}
