/** Error chunk codes (docs/chat.md, "Stream entries") a failed model call ends the turn with. */
export type ModelErrorCode = 'model_unavailable' | 'agent_failed' | 'agent_unavailable';

/** The model gateway could not be reached or refused the call; `message` may be shown to the user. */
export class ModelError extends Error {
  constructor(
    readonly code: ModelErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ModelError';
  }
}

/** The gateway status as a chunk code: 400, 413 and 422 refuse our request (`agent_failed`); else unavailable. */
export function errorCodeForStatus(status: number): ModelErrorCode {
  return status === 400 || status === 413 || status === 422 ? 'agent_failed' : 'model_unavailable';
}
