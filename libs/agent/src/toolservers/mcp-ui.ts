import { MCP_APP_MIME_TYPE, isStorableText } from '@fed/contracts';

/** The largest UI resource HTML taken from a tool server (UTF-8 bytes); a larger one is not shown. */
export const UI_MAX_BYTES = 2 * 1024 * 1024;
const URI_MAX = 2048;
// Rendering hints are the provider's declaration, passed on as they are, but not of any size.
const META_MAX_CHARS = 16_384;

/** One entry of `resources/read` `contents` or of an embedded `resource` content item. */
export interface ResourceContent {
  uri: string;
  mimeType?: string;
  text?: unknown;
  blob?: unknown;
  _meta?: Record<string, unknown>;
}

export type UiCheck =
  | { ok: true; uri: string; html: string; mimeType: string; size: number; meta?: Record<string, unknown> }
  | { ok: false; problem: string; tooLarge?: true };

export function isUiUri(uri: unknown): uri is string {
  return (
    typeof uri === 'string' && uri.startsWith('ui://') && uri.length > 5 && uri.length <= URI_MAX && isStorableText(uri)
  );
}

/** The MCP Apps resource `uri` among `contents`, in form only: `ui://`, `text/html;profile=mcp-app`, text, size. */
export function checkUiResource(uri: string, contents: readonly ResourceContent[], maxBytes = UI_MAX_BYTES): UiCheck {
  if (!isUiUri(uri)) return { ok: false, problem: 'its URI is not a ui:// URI' };
  const content = contents.find((entry) => entry.uri === uri) ?? (contents.length === 1 ? contents[0] : undefined);
  if (!content) return { ok: false, problem: `the server returned no content for ${uri}` };
  if (content.mimeType !== MCP_APP_MIME_TYPE) {
    return {
      ok: false,
      problem: `its MIME type is ${JSON.stringify(String(content.mimeType ?? 'none').slice(0, 100))}, not ${MCP_APP_MIME_TYPE}`,
    };
  }
  if (typeof content.text !== 'string' || content.text.length === 0) {
    return { ok: false, problem: 'it has no text content' };
  }
  // Checked on characters first, so a huge string is never encoded to be measured.
  if (content.text.length > maxBytes || Buffer.byteLength(content.text, 'utf8') > maxBytes) {
    return { ok: false, problem: `its HTML is larger than ${maxBytes} bytes`, tooLarge: true };
  }
  if (!isStorableText(content.text)) return { ok: false, problem: 'its HTML has NUL or unpaired surrogate characters' };
  return {
    ok: true,
    uri,
    html: content.text,
    mimeType: content.mimeType,
    size: Buffer.byteLength(content.text, 'utf8'),
    meta: uiMeta(content._meta),
  };
}

/** `_meta.ui` of a resource or tool, when it is a plain object of reasonable size. */
export function uiMeta(meta: unknown): Record<string, unknown> | undefined {
  if (!isObject(meta) || !isObject(meta.ui)) return undefined;
  const text = JSON.stringify(meta.ui);
  // The JSON text escapes NUL and lone surrogates, which jsonb then refuses: its strings are checked.
  if (text.length > META_MAX_CHARS) return undefined;
  const copy = JSON.parse(text) as Record<string, unknown>;
  return isStorableJson(copy) ? copy : undefined;
}

function isStorableJson(value: unknown): boolean {
  if (typeof value === 'string') return isStorableText(value);
  if (Array.isArray(value)) return value.every(isStorableJson);
  if (!isObject(value)) return true;
  return Object.entries(value).every(([key, entry]) => isStorableText(key) && isStorableJson(entry));
}

/** A tool's `_meta.ui.resourceUri` (or the older flat `ui/resourceUri` key). */
export function toolUiResourceUri(meta: unknown): string | undefined {
  if (!isObject(meta)) return undefined;
  const nested = isObject(meta.ui) ? meta.ui.resourceUri : undefined;
  const uri = nested ?? meta['ui/resourceUri'];
  return isUiUri(uri) ? uri : undefined;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
