import { domainErrors } from '@fed/contracts';

/** A refused change to the tool-server registry, safe to show to an operator. */
export class ToolServersError extends domainErrors({
  invalid_name: 'invalid_parameter',
  invalid_url: 'invalid_parameter',
  address_not_allowed: 'invalid_parameter',
  invalid_auth_header: 'invalid_parameter',
  // A changed origin does not inherit the header given for the old one.
  auth_header_required: 'invalid_parameter',
  invalid_allowed_tools: 'invalid_parameter',
  invalid_timeout: 'invalid_parameter',
  unknown_tool: 'invalid_parameter',
  unstorable_tool: 'invalid_parameter',
  no_secret_key: 'invalid_request',
  nothing_to_update: 'invalid_request',
  server_exists: 'conflict',
  server_not_found: 'not_found',
  server_unreachable: 'upstream_api_error',
}) {}

export type ToolServersErrorCode = ToolServersError['code'];
