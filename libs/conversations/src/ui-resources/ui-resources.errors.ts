import { domainErrors } from '@fed/contracts';

/** A UI resource's HTML refused; the message is safe to show. */
export class UiResourcesError extends domainErrors({
  conversation_not_found: 'conversation_not_found',
  ui_resource_not_found: 'not_found',
  html_too_large: 'file_too_large',
  tool_server_unreachable: 'upstream_api_error',
}) {}

export type UiResourcesErrorCode = UiResourcesError['code'];
