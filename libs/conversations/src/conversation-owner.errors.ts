import { domainErrors } from '@fed/contracts';

/** Whose conversations a request reads, refused: the Marketplace edition's service account and agent checks. */
export class OwnerError extends domainErrors({
  service_account_required: 'service_account_required',
  agent_not_found: 'agent_not_found',
  agent_disabled: 'agent_disabled',
  invalid_agent_id: 'invalid_request',
  agent_id_required: 'agent_id_required',
  agent_id_mismatch: 'agent_id_mismatch',
}) {}

export type OwnerErrorCode = OwnerError['code'];
