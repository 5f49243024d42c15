import { DocumentExtractor } from './document-extractor';
import { assertZipInflatesWithin } from './zip-bounds';

// Every reader of the process shares the document workers (DocumentExtractor).
const extractor = new DocumentExtractor();

/**
 * The text of a PDF, pages joined by blank lines, extracted in a worker thread. A PDF's streams may
 * inflate without end: aborting `signal` ends the worker at once and rejects with the signal's reason.
 */
export function pdfText(bytes: Buffer, signal?: AbortSignal): Promise<string> {
  return extractor.text('pdf', bytes, signal);
}

/**
 * The raw text of a DOCX document (paragraphs, no formatting), extracted in a worker thread. mammoth
 * unzips the whole archive in memory, so an archive inflating past `maxUnpackedBytes` is refused first
 * (`ZipRefusedError`); within that bound its XML can still take many seconds: aborting `signal` ends
 * the worker at once.
 */
export async function docxText(bytes: Buffer, maxUnpackedBytes: number, signal?: AbortSignal): Promise<string> {
  await assertZipInflatesWithin(bytes, maxUnpackedBytes);
  return extractor.text('docx', bytes, signal);
}
