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

/**
 * The gateway's status as an error chunk code: refusals of the request the agent built (400, 413,
 * 422) are the agent's failure; everything else (credentials, unknown model, limits, provider
 * errors) means the model is not available now.
 */
export function errorCodeForStatus(status: number): ModelErrorCode {
  return status === 400 || status === 413 || status === 422 ? 'agent_failed' : 'model_unavailable';
}
