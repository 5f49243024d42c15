import { domainErrors } from '@fed/contracts';

/** Safe to show to an operator; each code names the REST API's answer. */
export class ApiKeysError extends domainErrors({
  invalid_name: 'invalid_parameter',
  invalid_limit: 'invalid_parameter',
  invalid_model: 'invalid_parameter',
  invalid_network: 'invalid_parameter',
  invalid_tenant: 'invalid_parameter',
  invalid_expiry: 'invalid_parameter',
  nothing_to_change: 'invalid_parameter',
  key_not_found: 'not_found',
  // Revocation is final: a revoked key is never changed or revoked again (a new key is made instead).
  key_revoked: 'conflict',
}) {}

export type ApiKeysErrorCode = ApiKeysError['code'];
