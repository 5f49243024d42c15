import { domainErrors } from '@fed/contracts';

export class GatewayUsageError extends domainErrors({
  invalid_range: 'invalid_parameter',
  range_too_long: 'invalid_parameter',
  // Another tenant's usage is the platform operator's to read.
  other_tenant: 'insufficient_scope',
}) {}

export type GatewayUsageErrorCode = GatewayUsageError['code'];
