import { extname } from 'node:path';

/** How an attachment is read. */
export type FileFormat = 'text' | 'pdf' | 'docx' | 'image' | 'other';

const TEXT_TYPES = new Set([
  'text/plain',
  'text/markdown',
  'text/x-markdown',
  'text/csv',
  'application/csv',
  'application/json',
  'application/x-ndjson',
  'text/tab-separated-values',
]);
const TEXT_EXTENSIONS = new Set(['.txt', '.md', '.markdown', '.csv', '.tsv', '.json', '.ndjson', '.log']);
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** Image types the chat-completions API takes as image parts. */
export const MODEL_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** By the stored MIME type first, then by the name's extension (uploads of `application/octet-stream`). */
export function formatOf(mimeType: string, filename: string | undefined): FileFormat {
  const type = mimeType.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  const extension = filename ? extname(filename).toLowerCase() : '';
  if (TEXT_TYPES.has(type) || type.startsWith('text/') || type.endsWith('+json')) return 'text';
  if (type === 'application/pdf') return 'pdf';
  if (type === DOCX) return 'docx';
  if (type.startsWith('image/')) return 'image';
  if (type === 'application/octet-stream' || type === '') {
    if (TEXT_EXTENSIONS.has(extension)) return 'text';
    if (extension === '.pdf') return 'pdf';
    if (extension === '.docx') return 'docx';
  }
  return 'other';
}
