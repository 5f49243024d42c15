import type { UiResource } from '@fed/contracts';

/** The largest HTML `GET .../ui-resources/:toolCallId` returns (spec: "retrievable UI HTML", 512 KB). */
export const UI_HTML_MAX_BYTES = 524_288;

const TOOL_CALL_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** A `toolCallId` the retrieval endpoint accepts: 1-128 letters, digits, `-` and `_`. */
export function isToolCallId(value: unknown): value is string {
  return typeof value === 'string' && TOOL_CALL_ID.test(value);
}

/** A UI resource as the runtime stores it with its turn (`TurnLedger.saveUiResource`). */
export interface UiResourceRecord {
  toolCallId: string;
  type: UiResource['type'];
  origin: UiResource['origin'];
  toolName: string;
  serverName: string;
  mimeType?: string;
  uri?: string;
  /** `html` resources only; absent: an external resource to be read again on retrieval. */
  html?: string;
  meta?: Record<string, unknown>;
  capabilities?: Record<string, unknown>;
}
