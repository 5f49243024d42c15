import { domainErrors } from '@fed/contracts';

/** A refused signing-key operation, safe to show to an operator; each code names the REST API's answer. */
export class SigningKeysError extends domainErrors({
  key_not_found: 'not_found',
}) {}

export type SigningKeysErrorCode = SigningKeysError['code'];
