import { isStorableText } from '@fed/contracts';
import { LibraryError } from './library.errors';

export const TITLE_MAX = 200;
export const DESCRIPTION_MAX = 2000;
/** A prompt template's text. */
export const TEMPLATE_MAX = 100_000;
/** A library file: the upload limit of document 2. */
export const LIBRARY_FILE_MAX_BYTES = 512 * 1024 * 1024;

const FILEPATH = /^[A-Za-z0-9._/-]{1,255}$/;

/** A library `filepath`: letters, digits, `.`, `_`, `/`, `-`, at most 255, no `..` segment, no empty segment. */
export function isLibraryFilepath(value: unknown): value is string {
  if (typeof value !== 'string' || !FILEPATH.test(value)) return false;
  return value.split('/').every((segment) => segment.length > 0 && segment !== '.' && segment !== '..');
}

export function checkFilepath(filepath: string): string {
  if (!isLibraryFilepath(filepath)) {
    throw new LibraryError(
      'invalid_filepath',
      'filepath must be 1-255 characters of A-Z, a-z, 0-9, ".", "_", "/" and "-", without empty, "." or ".." segments',
    );
  }
  return filepath;
}

export function checkTitle(title: string): string {
  const trimmed = title.trim();
  if (
    trimmed.length === 0 ||
    Array.from(trimmed).length > TITLE_MAX ||
    /[\r\n]/.test(trimmed) ||
    !isStorableText(trimmed)
  ) {
    throw new LibraryError('invalid_title', `title must be 1-${TITLE_MAX} characters on one line`);
  }
  return trimmed;
}

export function checkDescription(description: string): string {
  if (Array.from(description).length > DESCRIPTION_MAX || !isStorableText(description)) {
    throw new LibraryError('invalid_description', `description must be at most ${DESCRIPTION_MAX} characters`);
  }
  return description;
}

// What the runtime's reader and the user message's `files[]` take: a lowercase `type/subtype`, nothing more.
const MIME_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

export function checkMimeType(mimeType: string): string {
  const type = mimeType.trim().toLowerCase();
  if (!MIME_TYPE.test(type))
    throw new LibraryError('invalid_mime_type', 'mimeType must be a media type such as text/csv');
  return type;
}

export function checkTemplate(content: string): string {
  if (content.trim().length === 0 || Array.from(content).length > TEMPLATE_MAX || !isStorableText(content)) {
    throw new LibraryError('invalid_content', `a template's text must be 1-${TEMPLATE_MAX} characters`);
  }
  return content;
}
