import { ApiError, domainErrors } from '@fed/contracts';

/** A refused change to the library, safe to show to an operator. */
export class LibraryError extends domainErrors({
  invalid_filepath: 'invalid_parameter',
  invalid_title: 'invalid_parameter',
  invalid_description: 'invalid_parameter',
  invalid_content: 'invalid_parameter',
  invalid_file: 'invalid_parameter',
  invalid_mime_type: 'invalid_parameter',
  // The multipart body of an upload (`POST /api/v1/admin/library/files`), as chat's uploads refuse theirs.
  invalid_upload: 'invalid_request',
  file_too_large: 'payload_too_large',
  filepath_exists: 'conflict',
  item_not_found: 'not_found',
  invalid_cursor: 'invalid_cursor',
}) {
  /** Headers the answer carries: `Connection: close` while an upload's body is still arriving. */
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

export type LibraryErrorCode = LibraryError['code'];
