import busboy, { type Busboy } from 'busboy';
import { type IncomingMessage } from 'node:http';
import { type Readable } from 'node:stream';
import { LibraryError } from './library.errors';
import { DESCRIPTION_MAX } from './library.rules';

/** The text fields of a library file's upload, as `platformctl library add` takes them. */
export interface LibraryUploadFields {
  filepath?: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

const FIELDS: readonly (keyof LibraryUploadFields)[] = ['filepath', 'title', 'description', 'mimeType'];

export class LibraryUploadCutOffError extends Error {
  constructor() {
    super('the upload was cut off before its end');
    this.name = 'LibraryUploadCutOffError';
  }
}

// A field holds a description at most (2,000 characters, up to 4 bytes each); other fields are tolerated and
// ignored, but nothing unbounded is read into memory. The file's own name and Content-Type are ignored, as the
// chat's uploads do: the filepath names it, its type is given or follows from the filepath's extension.
const LIMITS = { fieldSize: DESCRIPTION_MAX * 4, fields: 16, parts: 24, headerPairs: 32 };
/** Buffering between the socket, the parser and the file stream: fewer, larger writes to the store. */
const STREAM_BUFFER_BYTES = 1024 * 1024;

const refused = (message: string) => new LibraryError('invalid_upload', message);

/**
 * Streams a multipart upload: the text fields first, then one `file` part, given to `store` with the fields as it
 * arrives (never buffered). The first failure wins; the promise rejects only after `store` settles, so whatever it
 * wrote can be removed.
 */
export function receiveLibraryUpload<T>(
  request: IncomingMessage,
  store: (fields: LibraryUploadFields, file: Readable, signal: AbortSignal) => Promise<T>,
): Promise<T> {
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

  return new Promise<T>((resolve, reject) => {
    const abort = new AbortController();
    const fields: LibraryUploadFields = {};
    let storing: Promise<T> | undefined;
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

    parser.on('field', (name, value, info) => {
      const field = FIELDS.find((known) => known === name);
      if (failed || field === undefined) return;
      if (storing) return fail(refused(`the ${field} field must come before the file part`));
      if (fields[field] !== undefined) return fail(refused(`the ${field} field must be given once`));
      if (info.valueTruncated) return fail(refused(`the ${field} field is too long`));
      fields[field] = value;
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
              : `unexpected file part "${name.slice(0, 64)}": the file goes in the part named file`,
          ),
        );
      }
      if (fields.filepath === undefined) {
        file.on('error', () => undefined).resume();
        return fail(new LibraryError('invalid_filepath', 'the filepath field is required, before the file part'));
      }
      storing = store({ ...fields }, file, abort.signal);
      // A failing store ends the upload at once (413 as soon as the limit is crossed).
      storing.catch((error: unknown) => fail(error instanceof Error ? error : new Error(String(error))));
    });
    parser.on('partsLimit', () => fail(refused('too many parts')));
    parser.on('fieldsLimit', () => fail(refused('too many fields')));
    parser.on('error', (error: unknown) => {
      if (request.complete || !request.destroyed) {
        fail(refused(`malformed multipart body: ${error instanceof Error ? error.message : String(error)}`));
      } else {
        fail(new LibraryUploadCutOffError());
      }
    });
    parser.on('close', () => {
      if (failed) return;
      if (!storing) return fail(refused('the file part is missing'));
      storing.then(
        (stored) => {
          if (!failed) resolve(stored);
        },
        (error: unknown) => fail(error instanceof Error ? error : new Error(String(error))),
      );
    });
    // A client that goes away never ends the body: the parser would wait for ever.
    request.on('close', () => {
      if (!request.complete) fail(new LibraryUploadCutOffError());
    });
    request.on('error', () => fail(new LibraryUploadCutOffError()));
    request.pipe(parser);
  });
}
