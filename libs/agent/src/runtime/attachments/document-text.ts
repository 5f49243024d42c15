import { PdfExtractor } from './pdf-extractor';
import { assertZipInflatesWithin } from './zip-bounds';

// Every reader of the process shares the PDF workers (PdfExtractor).
const pdfExtractor = new PdfExtractor();

/**
 * The text of a PDF, pages joined by blank lines, extracted in a worker thread. A PDF's streams may
 * inflate without end: aborting `signal` ends the worker at once and rejects with the signal's reason.
 */
export function pdfText(bytes: Buffer, signal?: AbortSignal): Promise<string> {
  return pdfExtractor.text(bytes, signal);
}

/**
 * The raw text of a DOCX document (paragraphs, no formatting). mammoth unzips the whole archive in
 * memory, so an archive inflating past `maxUnpackedBytes` is refused first (`ZipRefusedError`).
 */
export async function docxText(bytes: Buffer, maxUnpackedBytes: number): Promise<string> {
  await assertZipInflatesWithin(bytes, maxUnpackedBytes);
  // Loaded on first use: mammoth and its XML and zip libraries are some 3 MB of heap in every process
  // that imports the agent library, most of which never read a document.
  const { extractRawText } = await import('mammoth');
  const { value } = await extractRawText({ buffer: bytes });
  return value;
}
