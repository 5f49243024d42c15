import { ApiError, domainErrors } from '@fed/contracts';

/** A refused upload or download of a file; the message is safe to show. */
export class FilesError extends domainErrors({
  file_not_found: 'not_found',
  upload_refused: 'invalid_request',
  // Swept as abandoned: no byte arrived for the whole sweep age.
  upload_stalled: 'invalid_request',
  invalid_filename: 'invalid_parameter',
  file_too_large: 'payload_too_large',
  file_not_stored: 'service_unavailable',
  range_not_satisfiable: 'range_not_satisfiable',
  invalid_cursor: 'invalid_cursor',
}) {
  /** Headers the answer carries: a 416's `Content-Range`, `Connection: close` while the body is still arriving. */
  headers: Readonly<Record<string, string>> = {};

  withHeaders(headers: Readonly<Record<string, string>>): this {
    this.headers = { ...this.headers, ...headers };
    return this;
  }

  override toApiError(): ApiError {
    const error = super.toApiError();
    return new ApiError(error.code, error.message, this.headers);
  }
}

export type FilesErrorCode = FilesError['code'];
