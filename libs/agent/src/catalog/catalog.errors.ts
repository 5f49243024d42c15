import { domainErrors } from '@fed/contracts';

/** A refused change to the catalog, safe to show to an operator; each code names the REST API's answer. */
export class CatalogError extends domainErrors({
  invalid_key: 'invalid_parameter',
  invalid_name: 'invalid_parameter',
  invalid_description: 'invalid_parameter',
  invalid_instructions: 'invalid_parameter',
  invalid_enabled: 'invalid_parameter',
  nothing_to_update: 'invalid_request',
  persona_exists: 'conflict',
  persona_not_found: 'not_found',
  playbook_not_found: 'not_found',
  skill_not_found: 'not_found',
  // The chat request's catalog parameters.
  unknown_persona: 'invalid_parameter',
  invalid_playbook: 'invalid_parameter',
  invalid_cursor: 'invalid_cursor',
}) {}

export type CatalogErrorCode = CatalogError['code'];
