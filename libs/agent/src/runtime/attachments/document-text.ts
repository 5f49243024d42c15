import { DocumentExtractor } from './document-extractor';
import { assertZipInflatesWithin } from './zip-bounds';

// Every reader of the process shares the document workers (DocumentExtractor).
const extractor = new DocumentExtractor();

/** A PDF's text (pages joined by blank lines) in a worker; aborting `signal` ends the worker at once (PDF bombs). */
export function pdfText(bytes: Buffer, signal?: AbortSignal): Promise<string> {
  return extractor.text('pdf', bytes, signal);
}

/** A DOCX's text in a worker; refused first past `maxUnpackedBytes` (mammoth unzips in memory); `signal` aborts. */
export async function docxText(bytes: Buffer, maxUnpackedBytes: number, signal?: AbortSignal): Promise<string> {
  await assertZipInflatesWithin(bytes, maxUnpackedBytes);
  return extractor.text('docx', bytes, signal);
}
