import { A2AError, RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { ApiError, DomainError } from '@fed/contracts';
import { type Logger } from '@fed/observability';
import { randomUUID } from 'node:crypto';

/** Thrown for what went wrong on our side: -32603 with an id to find the log line, nothing internal. */
export class A2aInternalError extends Error {
  constructor(readonly errorId: string) {
    super(`internal error (errorId ${errorId})`);
    this.name = 'A2aInternalError';
  }
}

/**
 * A turn-pipeline failure as the spec's A2A error: unknown or foreign conversation -32001, turn running or archived
 * -32004, refused value -32602; anything else is logged and answered -32603.
 */
export function toA2aError(error: unknown, logger: Logger): Error {
  if (error instanceof A2AError || error instanceof A2aInternalError) return error;
  if (error instanceof DomainError) return toA2aError(error.toApiError(), logger);
  if (error instanceof ApiError) {
    switch (error.code) {
      case 'conversation_not_found':
        return new TaskNotFoundError({ message: 'no such task' });
      case 'conversation_processing':
        return new UnsupportedOperationError({
          message: 'the task is working on a message; wait for it to finish or cancel it',
        });
      case 'conversation_archived':
        return new UnsupportedOperationError({ message: 'the task is archived; restore its conversation first' });
      default:
        if (error.status < 500) return new RequestMalformedError({ message: error.message });
    }
  }
  const errorId = randomUUID();
  logger.error({ err: error, errorId }, 'A2A request failed');
  return new A2aInternalError(errorId);
}
