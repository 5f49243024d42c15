import { createRequire } from 'node:module';
import path from 'node:path';
import { definePDFJSModule, extractText, getDocumentProxy } from 'unpdf';
import { assertZipInflatesWithin } from './zip-bounds';

// unpdf is loaded through its CommonJS entry, which imports its bundled PDF.js with a dynamic import().
// Jest's module runtime has no dynamic import, and the bundle's package export is import-only, so we
// hand unpdf the bundle by its file path: Node 24 require()s an ES module (require(esm)), and Jest
// compiles it to CommonJS (jest.config.cjs transforms unpdf), so both run the same code.
let pdfjsReady: Promise<void> | undefined;

function loadPdfjs(): Promise<void> {
  pdfjsReady ??= definePDFJSModule(() => {
    const bundle = path.join(path.dirname(createRequire(__filename).resolve('unpdf')), 'pdfjs.mjs');
    return Promise.resolve(createRequire(__filename)(bundle) as Record<string, unknown>);
  });
  return pdfjsReady;
}

/**
 * The text of a PDF, pages joined by blank lines. A PDF's streams may inflate without end (PDF.js reads
 * them as it goes, in bounded memory, but for as long as they last): aborting `signal` stops the work.
 */
export async function pdfText(bytes: Buffer, signal?: AbortSignal): Promise<string> {
  await loadPdfjs();
  signal?.throwIfAborted();
  // PDF.js takes ownership of the array it is given: hand it a copy. Verbosity 0: no console warnings.
  const document = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  const stop = () => void document.loadingTask.destroy();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    const { text } = await extractText(document, { mergePages: false });
    // A destroyed document yields what it had read so far, without an error.
    signal?.throwIfAborted();
    return text.map((page) => page.trim()).join('\n\n');
  } finally {
    signal?.removeEventListener('abort', stop);
    await document.loadingTask.destroy();
  }
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
