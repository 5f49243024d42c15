import { domainErrors } from '@fed/contracts';

export class MasterDataError extends domainErrors({
  invalid_code: 'invalid_parameter',
  invalid_label: 'invalid_parameter',
  code_exists: 'conflict',
  record_not_found: 'not_found',
  tenant_not_found: 'invalid_parameter',
  // The tenant sees a platform-wide entry (so not a 404) but only the operator changes it.
  platform_entry: 'platform_entry_read_only',
  // Users still carry the code: 409 rather than silently orphaning them.
  in_use: 'conflict',
}) {}

export type MasterDataErrorCode = MasterDataError['code'];
