import { domainErrors } from '@fed/contracts';

export class TenantsError extends domainErrors({
  tenant_not_found: 'not_found',
  invalid_name: 'invalid_parameter',
  invalid_type: 'invalid_parameter',
  invalid_endpoint: 'invalid_parameter',
  name_taken: 'conflict',
  // Users and clients are refused by the database (foreign keys), not deleted with their tenant.
  in_use: 'conflict',
  // Users and clients without a tenant join it: it is neither deleted nor taken by a new tenant.
  default_tenant: 'conflict',
  nothing_to_change: 'invalid_request',
}) {}

export type TenantsErrorCode = TenantsError['code'];
