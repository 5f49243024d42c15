import { type BlobRange, type BlobStore, BlobNotFoundError } from '@fed/storage';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { combineRanges, parse as parseRange } from 'range-parser';
import { FilesError } from './files.errors';

export interface DownloadableBlob {
  store: BlobStore;
  key: string;
  bytes: number;
  mimeType: string;
  filename: string;
  /** Without quotes; the response quotes it. */
  etag?: string;
}

// Types a browser could run or render as a document of our origin (scripts, markup): they are only
// ever served as opaque bytes, whatever the uploader declared or the extension suggested.
const ACTIVE_CONTENT =
  /^(text\/(html|xml|javascript|ecmascript|xsl)|application\/(xhtml\+xml|xml|javascript|ecmascript|x-javascript|xslt\+xml)|image\/svg\+xml|multipart\/.*)$|\+xml$/i;
const OCTET_STREAM = 'application/octet-stream';
const ETAG_LIST_ITEM = /^\s*(?:W\/)?"([^"]*)"\s*$/;

/** What `Content-Type` a blob of `mimeType` is served with: never one a browser would execute. */
export function servedContentType(mimeType: string): string {
  const essence = mimeType.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(essence) || ACTIVE_CONTENT.test(essence)) return OCTET_STREAM;
  return essence;
}

/** `attachment` with an ASCII fallback `filename` and the exact name in RFC 5987 `filename*`. */
export function attachmentDisposition(filename: string): string {
  const fallback =
    filename
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^\x20-\x7e]|["\\%]/g, '_')
      .trim() || 'download';
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((item) => ETAG_LIST_ITEM.exec(item)?.[1] === etag);
}

/** The one range asked for, else null for the whole file (RFC 9110 allows ignoring odd ones); all past the end: 416. */
function requestedRange(header: string | undefined, bytes: number): BlobRange | null {
  if (!header) return null;
  const parsed = parseRange(bytes, header);
  if (parsed.type !== 'bytes' || (parsed.code & 1) !== 0) return null;
  if (parsed.ranges.length === 0) {
    if ((parsed.code & 2) === 0) return null;
    throw new FilesError('range_not_satisfiable', `the range is outside the file's ${bytes} bytes`).withHeaders({
      'Content-Range': `bytes */${bytes}`,
    });
  }
  const combined = combineRanges(parsed.ranges);
  if (combined.length !== 1) return null;
  const range = combined[0] as BlobRange;
  return range.start === 0 && range.end === bytes - 1 ? null : { start: range.start, end: range.end };
}

/**
 * Sends a download (active content as octet-stream; 206, 416 and 404 as due). Once headers are out, a failing read
 * destroys the socket so the client sees a cut-off body, never a short one that looks whole.
 */
export async function sendBlob(
  request: IncomingMessage,
  response: ServerResponse,
  blob: DownloadableBlob,
): Promise<void> {
  const headers: Record<string, string> = {
    'Content-Type': servedContentType(blob.mimeType),
    'Content-Disposition': attachmentDisposition(blob.filename),
    'Accept-Ranges': 'bytes',
    'Cache-Control': 'private, no-cache',
    // Even opened directly (not downloaded), the bytes get no script and no origin of ours.
    'Content-Security-Policy': "sandbox; default-src 'none'",
    'X-Content-Type-Options': 'nosniff',
  };
  const etag = blob.etag === undefined ? undefined : `"${blob.etag}"`;
  if (etag) headers.ETag = etag;

  if (blob.etag !== undefined && etagMatches(request.headers['if-none-match'], blob.etag)) {
    response.writeHead(304, { ETag: headers.ETag, 'Cache-Control': headers['Cache-Control'] });
    response.end();
    return;
  }
  // If-Range with another validator: the client's partial copy is stale, so it gets the whole file.
  const ifRange = headerValue(request.headers['if-range']);
  const rangeHeader =
    ifRange === undefined || (blob.etag !== undefined && etagMatches(ifRange, blob.etag))
      ? request.headers.range
      : undefined;
  const range = requestedRange(rangeHeader, blob.bytes);

  let body: Readable | undefined;
  if (request.method !== 'HEAD' && blob.bytes > 0) {
    try {
      body = await blob.store.get(blob.key, range ?? undefined);
    } catch (error) {
      if (error instanceof BlobNotFoundError) throw new FilesError('file_not_found', 'file not found');
      throw error;
    }
  }
  if (range) {
    headers['Content-Range'] = `bytes ${range.start}-${range.end}/${blob.bytes}`;
    headers['Content-Length'] = String(range.end - range.start + 1);
  } else {
    headers['Content-Length'] = String(blob.bytes);
  }
  response.writeHead(range ? 206 : 200, headers);
  if (!body) {
    response.end();
    return;
  }
  try {
    await pipeline(body, response);
  } catch {
    // The client went away or the store failed mid-body: either way the response cannot be completed.
    body.destroy();
    response.destroy();
    request.socket.destroy();
  }
}
