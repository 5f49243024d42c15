import { domainErrors } from '@fed/contracts';

/** A refused change to organizations or job types, safe to show; each code names the REST API's answer. */
export class MasterDataError extends domainErrors({
  invalid_code: 'invalid_parameter',
  invalid_label: 'invalid_parameter',
  code_exists: 'conflict',
  record_not_found: 'not_found',
  // platformctl --tenant naming no tenant.
  tenant_not_found: 'invalid_parameter',
  // A platform-wide entry: the tenant sees it (so not a 404) but only the platform operator changes it.
  platform_entry: 'platform_entry_read_only',
  // Users still carry the code: removing it would leave them pointing at nothing (409, not a silent orphan).
  in_use: 'conflict',
}) {}

export type MasterDataErrorCode = MasterDataError['code'];
