import { type RequestOptions } from 'node:http';
import { REDACTED, redactedQuery } from '../logging/redacted-query';

// Queries follow the access log's rules (redactedQuery). Outgoing URLs (an MCP server's often holds its
// key) also lose their user info and the path segments that look like keys.

const URL_LIMIT = 2048;
/** Anything else (percent-encoded bytes, `+`, `=`) may be a token. */
const PLAIN_SEGMENT = /^[A-Za-z0-9._~:@-]+$/;
const SHORT_SEGMENT = 12;
const WORD_SEGMENT = 32;

export type SpanUrl = {
  'url.full': string;
  'url.path': string;
  'url.query'?: string;
};

export function incomingQuery(target: string | undefined): string | undefined {
  const query = target?.indexOf('?') ?? -1;
  if (!target || query < 0) return undefined;
  return redactedQuery(target.slice(query + 1), URL_LIMIT).slice(0, URL_LIMIT) || undefined;
}

/** A segment is kept when short (`v1`, `gpt-4o`) or a longer word without digits (`completions`). */
export function outgoingUrl(url: string | URL): SpanUrl | undefined {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return undefined;
  }
  const path = parsed.pathname.split('/').map(shownSegment).join('/').slice(0, URL_LIMIT);
  const query = parsed.search.length > 1 ? redactedQuery(parsed.search.slice(1), URL_LIMIT).slice(0, URL_LIMIT) : '';
  // `host` never holds the user info: `https://user:key@host` shows as `https://host`.
  const full = `${parsed.protocol}//${parsed.host}${path}${query ? `?${query}` : ''}`;
  return query ? { 'url.full': full, 'url.path': path, 'url.query': query } : { 'url.full': full, 'url.path': path };
}

/** Node's options: `host` or `hostname`, `port` apart. */
export function urlOfRequest(options: RequestOptions): string {
  const hostname = options.hostname ?? options.host ?? 'localhost';
  const host = hostname.includes(':') && !hostname.startsWith('[') ? `[${hostname}]` : hostname;
  const port = options.port ? `:${options.port}` : '';
  return `${options.protocol ?? 'http:'}//${host}${port}${options.path ?? '/'}`;
}

function shownSegment(segment: string): string {
  if (segment === '') return segment;
  if (!PLAIN_SEGMENT.test(segment)) return REDACTED;
  if (segment.length <= SHORT_SEGMENT) return segment;
  return segment.length <= WORD_SEGMENT && !/[0-9]/.test(segment) ? segment : REDACTED;
}
