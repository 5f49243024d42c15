import { domainErrors } from '@fed/contracts';

/** A refused change to the Marketplace agents (`platformctl agents`), safe to show to an operator. */
export class AgentsError extends domainErrors({
  invalid_agent_id: 'invalid_parameter',
  invalid_name: 'invalid_parameter',
  invalid_instructions: 'invalid_parameter',
  invalid_model: 'invalid_parameter',
  invalid_temperature: 'invalid_parameter',
  invalid_max_output_tokens: 'invalid_parameter',
  invalid_tenant: 'invalid_parameter',
  nothing_to_update: 'invalid_request',
  agent_exists: 'conflict',
  agent_not_found: 'not_found',
}) {}

export type AgentsErrorCode = AgentsError['code'];
