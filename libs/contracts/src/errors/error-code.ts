// A Record over the union, so adding a code without a status does not compile.
export const errorCodes = {
  invalid_request: { status: 400, type: 'invalid_request_error' },
  invalid_parameter: { status: 400, type: 'invalid_request_error' },
  invalid_cursor: { status: 400, type: 'invalid_request_error' },
  invalid_json: { status: 400, type: 'invalid_request_error' },
  invalid_conversation_id: { status: 400, type: 'invalid_request_error' },
  conversation_archived: { status: 400, type: 'invalid_request_error' },
  // Marketplace edition: the agent a request names (`agentId`, `X-Agent-Id`).
  agent_id_required: { status: 400, type: 'invalid_request_error' },
  agent_id_mismatch: { status: 400, type: 'invalid_request_error' },
  agent_not_found: { status: 400, type: 'invalid_request_error' },
  agent_disabled: { status: 400, type: 'invalid_request_error' },
  invalid_token: { status: 401, type: 'authentication_error' },
  insufficient_scope: { status: 403, type: 'permission_error' },
  // Marketplace edition: document 2 is served to service accounts only.
  service_account_required: { status: 403, type: 'permission_error' },
  // Platform-wide master data, which a tenant sees but only the operator changes.
  platform_entry_read_only: { status: 403, type: 'permission_error' },
  not_found: { status: 404, type: 'not_found_error' },
  conversation_not_found: { status: 404, type: 'not_found_error' },
  file_too_large: { status: 404, type: 'not_found_error' },
  method_not_allowed: { status: 405, type: 'invalid_request_error' },
  conflict: { status: 409, type: 'conflict_error' },
  conversation_processing: { status: 409, type: 'conflict_error' },
  payload_too_large: { status: 413, type: 'invalid_request_error' },
  range_not_satisfiable: { status: 416, type: 'invalid_request_error' },
  unsupported_media_type: { status: 415, type: 'invalid_request_error' },
  rate_limited: { status: 429, type: 'rate_limit_error' },
  monthly_quota_exceeded: { status: 429, type: 'rate_limit_error' },
  internal_error: { status: 500, type: 'api_error' },
  upstream_api_error: { status: 502, type: 'upstream_error' },
  upstream_timeout: { status: 504, type: 'upstream_error' },
  service_unavailable: { status: 503, type: 'api_error' },
} as const satisfies Record<string, { status: number; type: string }>;

export type ErrorCode = keyof typeof errorCodes;
export type ErrorType = (typeof errorCodes)[ErrorCode]['type'];

export function isErrorCode(value: string): value is ErrorCode {
  return Object.prototype.hasOwnProperty.call(errorCodes, value);
}
