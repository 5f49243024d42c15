import { Transform, type TransformCallback } from 'node:stream';
import { BlobTooLargeError } from './ports/blob-store';

/** Large blobs move in fewer, larger reads and writes. */
export const STREAM_BUFFER_BYTES = 1024 * 1024;

/** Fails on the chunk that crosses `maxBytes`, before it reaches the store, so the writer stops reading the body. */
export class ByteLimit extends Transform {
  bytes = 0;

  constructor(private readonly maxBytes = Number.POSITIVE_INFINITY) {
    super({ highWaterMark: STREAM_BUFFER_BYTES });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) return callback(new BlobTooLargeError(this.maxBytes));
    callback(null, chunk);
  }
}

/** The signal's reason when it is an Error. */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  // Duck-typed: AbortSignal.abort()'s DOMException may come from another realm (Jest's).
  if (reason instanceof Error || (typeof reason === 'object' && reason !== null && 'message' in reason)) {
    return reason as Error;
  }
  return Object.assign(new Error('the write was aborted'), { name: 'AbortError', cause: reason });
}
