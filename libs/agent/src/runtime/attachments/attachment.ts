/** What the model is given of one attached file. */
export type Attachment =
  /** The file's text (`truncated`: cut at a bound, with a visible marker at the cut). */
  | { kind: 'text'; name: string; mimeType: string; text: string; truncated: boolean }
  | { kind: 'image'; name: string; mimeType: string; dataUrl: string }
  /** The file could not be given (type, size, gone, unreadable): the model is told why. */
  | { kind: 'note'; name: string; mimeType: string; note: string };

/** Bounds of what one turn's attachments may put into the model's context. */
export interface AttachmentLimits {
  /** Bytes read of a text file (plain, Markdown, CSV, JSON). */
  textBytes: number;
  /** Bytes read of a PDF or DOCX; a larger one is not extracted. */
  documentBytes: number;
  /** What a DOCX (a ZIP archive) may inflate to in all; a larger one is not extracted (a zip bomb). */
  unpackedDocumentBytes: number;
  /** How long the text of one PDF or DOCX may take to extract; a slower one is named, not given. */
  extractionMs: number;
  /** An image larger than this is named, not sent. */
  imageBytes: number;
  fileCharacters: number;
  totalCharacters: number;
}

export const ATTACHMENT_LIMITS: AttachmentLimits = {
  textBytes: 2 * 1024 * 1024,
  documentBytes: 20 * 1024 * 1024,
  unpackedDocumentBytes: 64 * 1024 * 1024,
  extractionMs: 30_000,
  imageBytes: 5 * 1024 * 1024,
  fileCharacters: 100_000,
  totalCharacters: 200_000,
};

export const TRUNCATION_MARKER = '[… truncated: the rest of this file is not shown]';
