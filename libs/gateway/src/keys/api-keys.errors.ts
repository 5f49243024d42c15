export type ApiKeysErrorCode = 'invalid_name' | 'invalid_limit' | 'invalid_model' | 'invalid_network' | 'key_not_found';

/** A refused key creation or change; the message is safe to show to an operator. */
export class ApiKeysError extends Error {
  constructor(
    readonly code: ApiKeysErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ApiKeysError';
  }
}
