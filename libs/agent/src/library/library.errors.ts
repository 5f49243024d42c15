import { domainErrors } from '@fed/contracts';

/** A refused change to the library, safe to show to an operator. */
export class LibraryError extends domainErrors({
  invalid_filepath: 'invalid_parameter',
  invalid_title: 'invalid_parameter',
  invalid_description: 'invalid_parameter',
  invalid_content: 'invalid_parameter',
  invalid_file: 'invalid_parameter',
  invalid_mime_type: 'invalid_parameter',
  filepath_exists: 'conflict',
  item_not_found: 'not_found',
  invalid_cursor: 'invalid_cursor',
}) {}

export type LibraryErrorCode = LibraryError['code'];
