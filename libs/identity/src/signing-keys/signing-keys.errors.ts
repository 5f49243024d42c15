export type SigningKeysErrorCode = 'key_not_found';

/** A refused signing-key operation; the message is safe to show to an operator. */
export class SigningKeysError extends Error {
  constructor(
    readonly code: SigningKeysErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SigningKeysError';
  }
}
