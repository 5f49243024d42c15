import { domainErrors } from '@fed/contracts';

export class SigningKeysError extends domainErrors({
  key_not_found: 'not_found',
  // Repeating a revocation changes nothing: said rather than answered as a fresh success.
  already_revoked: 'conflict',
  invalid_lead: 'invalid_parameter',
  // A process without KEY_ENCRYPTION_KEY can list the keys but not seal a new one or prove it opens the current one.
  no_encryption_key: 'invalid_request',
}) {}

export type SigningKeysErrorCode = SigningKeysError['code'];
