import { domainErrors } from '@fed/contracts';

/** Messages are safe to show an operator. */
export class IdpError extends domainErrors({
  // The admin API names the tenant in its path (`/tenants/:tenantId/identity-provider`).
  tenant_not_found: 'not_found',
  not_enterprise: 'invalid_request',
  idp_not_found: 'not_found',
  invalid_issuer: 'invalid_parameter',
  invalid_client_id: 'invalid_parameter',
  invalid_client_secret: 'invalid_parameter',
  invalid_scopes: 'invalid_parameter',
  invalid_domain: 'invalid_parameter',
  invalid_claims: 'invalid_parameter',
  domain_taken: 'conflict',
  // The realm file or platformctl could not seal a secret: KEY_ENCRYPTION_KEY is missing.
  no_encryption_key: 'invalid_request',
}) {}

export type IdpErrorCode = IdpError['code'];
