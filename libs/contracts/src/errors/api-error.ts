import { type ErrorCode, type ErrorType, errorCodes } from './error-code';

/** Every REST error outside OAuth, the gateway and JSON-RPC (design: Errors). */
export interface ErrorEnvelope {
  error: {
    type: ErrorType;
    code: ErrorCode;
    message: string;
    /** On 500s: the id under which the failure was logged. */
    errorId?: string;
  };
}

/** The code decides status and type; the message is safe to show to the caller. */
export class ApiError extends Error {
  readonly status: number;
  readonly type: ErrorType;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = errorCodes[code].status;
    this.type = errorCodes[code].type;
  }

  toEnvelope(): ErrorEnvelope {
    return { error: { type: this.type, code: this.code, message: this.message } };
  }
}

export function errorEnvelope(code: ErrorCode, message: string, errorId?: string): ErrorEnvelope {
  const envelope: ErrorEnvelope = { error: { type: errorCodes[code].type, code, message } };
  if (errorId) envelope.error.errorId = errorId;
  return envelope;
}
