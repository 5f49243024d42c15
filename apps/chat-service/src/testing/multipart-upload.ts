import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

/** A part of a generated multipart body: a text field, or a file of given bytes or a generated size. */
export type UploadPart =
  | { name: string; value: string }
  | { name: string; filename?: string; contentType?: string; content: Buffer }
  | { name: string; filename?: string; contentType?: string; size: number };

export interface UploadOptions {
  /** Called after each chunk written, with the body bytes written so far. */
  onProgress?: (written: number) => void;
  /** Sent as Content-Length instead of chunked transfer. */
  contentLength?: boolean;
}

export interface UploadOutcome {
  status: number;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** Body bytes the generator had produced when the response's status line arrived. */
  writtenAtResponse: number;
  bodyComplete: boolean;
}

export interface CutOffOutcome {
  written: number;
}

const BOUNDARY = '----fed-test-boundary-5f2a9c';
// One buffer reused for every generated chunk, so the client's memory is flat whatever the size.
const FILL = Buffer.alloc(256 * 1024, 0x61);

function partHeader(part: UploadPart): Buffer {
  const disposition =
    'value' in part
      ? `form-data; name="${part.name}"`
      : `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
  const type = 'value' in part ? '' : `Content-Type: ${part.contentType ?? 'application/octet-stream'}\r\n`;
  return Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`);
}

function* bodyChunks(parts: UploadPart[]): Generator<Buffer> {
  for (const part of parts) {
    yield partHeader(part);
    if ('value' in part) yield Buffer.from(part.value);
    else if ('content' in part) yield part.content;
    else {
      for (let left = part.size; left > 0; left -= FILL.length) yield FILL.subarray(0, Math.min(left, FILL.length));
    }
    yield Buffer.from('\r\n');
  }
  yield Buffer.from(`--${BOUNDARY}--\r\n`);
}

function bodyLength(parts: UploadPart[]): number {
  let total = 0;
  for (const part of parts) {
    const content =
      'value' in part ? Buffer.byteLength(part.value) : 'content' in part ? part.content.length : part.size;
    total += partHeader(part).length + content + 2;
  }
  return total + Buffer.byteLength(`--${BOUNDARY}--\r\n`);
}

/** POSTs a generated multipart body with backpressure; resolves on the response, even mid-body (writing then stops). */
export function uploadMultipart(
  url: string,
  token: string,
  parts: UploadPart[],
  options: UploadOptions = {},
): Promise<UploadOutcome> {
  return new Promise((resolve, reject) => {
    let written = 0;
    let responded = false;
    let bodyComplete = false;
    const headers: Record<string, string | number> = {
      authorization: `Bearer ${token}`,
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
    };
    if (options.contentLength) headers['content-length'] = bodyLength(parts);
    const request = httpRequest(url, { method: 'POST', headers });
    request.on('error', (error) => {
      if (!responded) reject(error);
    });
    request.on('response', (response) => {
      responded = true;
      const writtenAtResponse = written;
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: Record<string, unknown> = {};
        try {
          body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
        } catch {
          body = { text };
        }
        if (!bodyComplete) request.destroy();
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body, writtenAtResponse, bodyComplete });
      });
    });

    const chunks = bodyChunks(parts);
    const pump = () => {
      for (;;) {
        if (responded || request.destroyed) return;
        const next = chunks.next();
        if (next.done) {
          bodyComplete = true;
          request.end();
          return;
        }
        written += next.value.length;
        const more = request.write(next.value);
        options.onProgress?.(written);
        if (!more) {
          request.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
}

/** Writes `cutAfterBytes` of the body, lets `whileOpen` run with the connection still open, then destroys it. */
export async function uploadCutOff(
  url: string,
  token: string,
  parts: UploadPart[],
  cutAfterBytes: number,
  whileOpen: () => Promise<void>,
): Promise<CutOffOutcome> {
  let written = 0;
  const request = httpRequest(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
  });
  request.on('error', () => undefined);
  request.on('response', (response) => response.resume());
  for (const chunk of bodyChunks(parts)) {
    const piece = chunk.subarray(0, Math.min(chunk.length, cutAfterBytes - written));
    written += piece.length;
    if (!request.write(piece)) await new Promise((resolve) => request.once('drain', resolve));
    if (written >= cutAfterBytes) break;
  }
  await whileOpen();
  request.destroy();
  return { written };
}
