import { UI_HTML_MAX_BYTES, type UiResourceRecord, isToolCallId } from '@fed/conversations';
import { type HtmlUiResource, type UiResource, isStorableText } from '@fed/contracts';
import type { ToolUiResource } from '../tools/agent-tool';
import { FIRST_PARTY_SERVER } from '../tools/first-party-ui';
import { stripMarkdown } from './markdown-stripper';
import { storableText } from './storable-stream';

export type PreparedUi =
  /** Shown as `resource`; stored as `record` (none: a `data` resource of a call id retrieval could not name). */
  | { servable: true; resource: UiResource; record?: UiResourceRecord }
  /** Its HTML cannot be served: only the alternative text is shown (spec: "When HTML cannot be served"). */
  | { servable: false; altText: string };

/** A tool's UI resource as shown (`altText` equals `delta.content`), or unservable (bad call id, bad or no HTML). */
export function prepareUi(
  ui: ToolUiResource,
  call: { id: string; toolName: string },
  outputFormat: 'plain' | 'markdown',
): PreparedUi {
  const callId = call.id;
  const altText = shownText(ui.resource.altText, outputFormat);
  const resource = ui.resource;
  // Spec, Events: "When HTML cannot be served, no uiResource is sent and only the alternative text arrives".
  if (ui.unservable) return { servable: false, altText };
  if (resource.type === 'data') {
    // The payload is the model's words too: stored in the task's jsonb, where NUL or a lone surrogate fails the turn.
    const shown: UiResource = { ...storableJson(resource), origin: 'first-party', altText };
    if (!isToolCallId(callId)) return { servable: true, resource: shown };
    return {
      servable: true,
      resource: shown,
      record: {
        toolCallId: callId,
        type: 'data',
        origin: 'first-party',
        toolName: call.toolName,
        serverName: FIRST_PARTY_SERVER,
      },
    };
  }
  const { html } = ui;
  const size = html === undefined ? undefined : Buffer.byteLength(html, 'utf8');
  const unservable =
    !isToolCallId(callId) ||
    (html === undefined
      ? resource.origin !== 'external'
      : (size as number) > UI_HTML_MAX_BYTES || !isStorableText(html));
  if (unservable) return { servable: false, altText };
  const { size: _declared, ...rest } = resource;
  const shown: HtmlUiResource = { ...rest, altText, tool_call_id: callId, ...(size === undefined ? {} : { size }) };
  return {
    servable: true,
    resource: shown,
    record: {
      toolCallId: callId,
      type: 'html',
      origin: shown.origin,
      toolName: shown.tool_name,
      serverName: shown.server_name,
      mimeType: shown.mime_type,
      uri: shown.uri,
      ...(html === undefined ? {} : { html }),
      ...(shown.meta ? { meta: shown.meta } : {}),
      ...(shown.capabilities ? { capabilities: shown.capabilities } : {}),
    },
  };
}

/** `metadata.uiResource` of the task in history: the resource without HTML (never in it) and without `size`. */
export function historyUiResource(resource: UiResource): UiResource {
  if (resource.type !== 'html') return resource;
  const { size: _size, ...rest } = resource;
  return rest;
}

/** The most of a view's tool input or result kept in a task's metadata (serialized); a larger one is left out. */
export const VIEW_DATA_MAX_CHARS = 64 * 1024;

/**
 * `metadata.toolInput` and `metadata.toolResult` of the task of a call that returned an MCP App: what its host
 * delivers to the view (`ui/notifications/tool-input`, `tool-result`). Storable, and each left out when larger
 * than VIEW_DATA_MAX_CHARS.
 */
export function viewData(
  toolInput: Record<string, unknown>,
  toolResult: { content: unknown[]; structuredContent?: unknown } | undefined,
): { toolInput?: Record<string, unknown>; toolResult?: { content: unknown[]; structuredContent?: unknown } } {
  const fits = (value: unknown) => JSON.stringify(value).length <= VIEW_DATA_MAX_CHARS;
  return {
    ...(fits(toolInput) ? { toolInput: storableJson(toolInput) } : {}),
    ...(toolResult && fits(toolResult) ? { toolResult: storableJson(toolResult) } : {}),
  };
}

/** A JSON value whose strings (keys included) are storable: NUL dropped, lone surrogates as U+FFFD. */
function storableJson<T>(value: T): T {
  if (typeof value === 'string') return storableText(value) as T;
  if (Array.isArray(value)) return value.map(storableJson) as T;
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, entry]) => [storableText(key), storableJson(entry as unknown)]),
  ) as T;
}

function shownText(text: string, outputFormat: 'plain' | 'markdown'): string {
  const storable = storableText(text);
  return outputFormat === 'plain' ? stripMarkdown(storable) : storable;
}
