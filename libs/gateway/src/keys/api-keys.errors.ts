import { domainErrors } from '@fed/contracts';

/** Safe to show to an operator; each code names the REST API's answer. */
export class ApiKeysError extends domainErrors({
  invalid_name: 'invalid_parameter',
  invalid_limit: 'invalid_parameter',
  invalid_model: 'invalid_parameter',
  invalid_network: 'invalid_parameter',
  invalid_tenant: 'invalid_parameter',
  key_not_found: 'not_found',
}) {}

export type ApiKeysErrorCode = ApiKeysError['code'];
