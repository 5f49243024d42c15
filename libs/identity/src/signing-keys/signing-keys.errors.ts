import { domainErrors } from '@fed/contracts';

export class SigningKeysError extends domainErrors({
  key_not_found: 'not_found',
}) {}

export type SigningKeysErrorCode = SigningKeysError['code'];
