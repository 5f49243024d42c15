import busboy, { type Busboy } from 'busboy';
import { type IncomingMessage } from 'node:http';
import { type Readable } from 'node:stream';
import { FilesError } from './files.errors';

export class UploadCutOffError extends Error {
  constructor() {
    super('the upload was cut off before its end');
    this.name = 'UploadCutOffError';
  }
}

export interface UploadHandlers<T> {
  /** Refusal message for a `filename` field value, or null; checked as soon as the field arrives. */
  checkFilename(filename: string): string | null;
  /** Stores the one `file` part; must consume `file` (or fail). */
  storeFile(file: Readable, signal: AbortSignal): Promise<T>;
}

export interface ReceivedUpload<T> {
  filename: string;
  stored: T;
}

// `filename` is at most 255 characters (at most 1020 bytes of UTF-8); other small fields are
// tolerated and ignored, but nothing unbounded is read into memory.
const LIMITS = { fieldSize: 4096, fields: 20, parts: 32, headerPairs: 32 };
/** Buffering between the socket, the parser and the file stream: fewer, larger writes to the store. */
const STREAM_BUFFER_BYTES = 1024 * 1024;

const refused = (message: string) => new FilesError('upload_refused', message);

/**
 * Streams a multipart upload: one `file` part (to `storeFile`, never buffered) and a `filename` field. The first
 * failure wins; the promise rejects only after `storeFile` settles, so whatever it wrote can be removed.
 */
export function receiveUpload<T>(request: IncomingMessage, handlers: UploadHandlers<T>): Promise<ReceivedUpload<T>> {
  let parser: Busboy;
  try {
    parser = busboy({
      headers: request.headers,
      limits: LIMITS,
      defParamCharset: 'utf8',
      highWaterMark: STREAM_BUFFER_BYTES,
      fileHwm: STREAM_BUFFER_BYTES,
    });
  } catch {
    return Promise.reject(refused('the body must be multipart/form-data with a boundary'));
  }

  return new Promise<ReceivedUpload<T>>((resolve, reject) => {
    const abort = new AbortController();
    let filename: string | undefined;
    let storing: Promise<T> | undefined;
    let parsed = false;
    let failed = false;

    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      request.unpipe(parser);
      request.pause();
      abort.abort(error);
      parser.destroy(error);
      // Whatever the store is doing ends with the destroyed file stream or the aborted signal.
      void (storing ?? Promise.resolve()).catch(() => undefined).then(() => reject(error));
    };

    const finishIfDone = () => {
      if (failed || !parsed) return;
      if (!storing) return fail(refused('the file part is missing'));
      if (filename === undefined) return fail(refused('the filename field is required'));
      const name = filename;
      storing.then(
        (stored) => {
          if (!failed) resolve({ filename: name, stored });
        },
        (error: unknown) => fail(error instanceof Error ? error : new Error(String(error))),
      );
    };

    parser.on('field', (name, value, info) => {
      if (name !== 'filename') return;
      if (filename !== undefined) return fail(refused('the filename field must be given once'));
      if (info.valueTruncated) return fail(refused('filename must be at most 255 characters'));
      const refusal = handlers.checkFilename(value);
      if (refusal) return fail(refused(refusal));
      filename = value;
    });
    parser.on('file', (name, file) => {
      if (failed || name !== 'file' || storing) {
        // Drained, and destroyed with the parser: its error has nobody else to go to.
        file.on('error', () => undefined).resume();
        if (failed) return;
        return fail(
          refused(
            storing
              ? 'only one file part may be sent'
              : `unexpected file part "${name}": the file goes in the part named file`,
          ),
        );
      }
      storing = handlers.storeFile(file, abort.signal);
      // A failing store ends the upload at once (413 as soon as the limit is crossed).
      storing.catch((error: unknown) => fail(error instanceof Error ? error : new Error(String(error))));
    });
    parser.on('partsLimit', () => fail(refused('too many parts')));
    parser.on('fieldsLimit', () => fail(refused('too many fields')));
    parser.on('error', (error: unknown) => {
      if (request.complete || !request.destroyed) {
        fail(refused(`malformed multipart body: ${error instanceof Error ? error.message : String(error)}`));
      } else {
        fail(new UploadCutOffError());
      }
    });
    parser.on('close', () => {
      parsed = true;
      finishIfDone();
    });
    // A client that goes away never ends the body: the parser would wait for ever.
    request.on('close', () => {
      if (!request.complete) fail(new UploadCutOffError());
    });
    request.on('error', () => fail(new UploadCutOffError()));
    request.pipe(parser);
  });
}
