import { type TurnFile } from '@fed/conversations';
import { type BlobInfo, BlobNotFoundError, type BlobRange, type BlobStore } from '@fed/storage';
import { deflatedPdf, docxPackage, minimalDocx, minimalPdf } from '@fed/testing';
import { Readable } from 'node:stream';
import { type LibraryItemEntity } from '../../library/library.entity';
import { ATTACHMENT_LIMITS, TRUNCATION_MARKER } from './attachment';
import { AttachmentReader } from './attachment-reader';

/** A blob store in memory that counts the bytes it hands out. */
class MemoryBlobs implements BlobStore {
  readonly blobs = new Map<string, Buffer>();
  served = 0;

  async put(key: string, body: Readable) {
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    this.blobs.set(key, Buffer.concat(chunks));
    return { key, bytes: this.blobs.get(key)?.length ?? 0 };
  }

  async get(key: string, range?: BlobRange): Promise<Readable> {
    const blob = this.blobs.get(key);
    if (!blob) throw new BlobNotFoundError(key);
    const bytes = range ? blob.subarray(range.start, range.end + 1) : blob;
    this.served += bytes.length;
    return Readable.from([bytes]);
  }

  async stat(key: string): Promise<BlobInfo | null> {
    const blob = this.blobs.get(key);
    return blob ? { key, bytes: blob.length, lastModified: new Date() } : null;
  }

  async delete(key: string) {
    this.blobs.delete(key);
  }

  async *list(): AsyncIterable<BlobInfo> {}
}

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

const documentXml = (text: string) =>
  Buffer.from(
    '<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">' +
      `<w:body><w:p><w:r><w:t>${text}</w:t></w:r></w:p></w:body></w:document>`,
  );

describe('attachment reader', () => {
  let blobs: MemoryBlobs;
  let library: LibraryItemEntity[];
  let reader: AttachmentReader;

  beforeEach(() => {
    blobs = new MemoryBlobs();
    library = [];
    reader = new AttachmentReader(blobs, {
      findByIds: async (ids) => library.filter((item) => ids.includes(item.id)),
    });
  });

  const upload = (filename: string, mimeType: string, content: Buffer | string): TurnFile => {
    const bytes = Buffer.from(content);
    const fileId = crypto.randomUUID();
    blobs.blobs.set(`uploads/${fileId}`, bytes);
    return { fileId, mimeType, filename, blobKey: `uploads/${fileId}`, bytes: bytes.length };
  };

  it('gives the text of plain text, Markdown, CSV and JSON files, with invalid UTF-8 bytes replaced', async () => {
    const attachments = await reader.read([
      upload('notes.txt', 'text/plain', 'plain words'),
      upload('readme.md', 'text/markdown', '# Title'),
      upload('table.csv', 'text/csv', 'a,b\n1,2'),
      upload('data.json', 'application/json', '{"k":1}'),
      upload('broken.txt', 'text/plain', Buffer.from([0x61, 0xff, 0x62])),
      upload('guess.md', 'application/octet-stream', 'by extension'),
    ]);
    expect(attachments.map((attachment) => (attachment.kind === 'text' ? attachment.text : attachment.kind))).toEqual([
      'plain words',
      '# Title',
      'a,b\n1,2',
      '{"k":1}',
      'a\uFFFDb',
      'by extension',
    ]);
  });

  it('extracts the text of a PDF and of a DOCX', async () => {
    const [pdf, docx] = await reader.read([
      upload('report.pdf', 'application/pdf', minimalPdf('Quarterly revenue grew')),
      upload(
        'memo.docx',
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        minimalDocx(['First paragraph', 'Second & last']),
      ),
    ]);
    expect(pdf).toMatchObject({ kind: 'text', name: 'report.pdf', text: 'Quarterly revenue grew' });
    expect(docx).toMatchObject({ kind: 'text', name: 'memo.docx' });
    expect(docx?.kind === 'text' && docx.text).toContain('First paragraph\n\nSecond & last');
  });

  it('does not unpack a DOCX whose contents inflate past 64 MB (a zip bomb): it is named, not extracted', async () => {
    const [ordinary] = await reader.read([
      upload('memo.docx', DOCX, docxPackage(documentXml('Deflated words'), { deflate: true })),
    ]);
    expect(ordinary?.kind === 'text' && ordinary.text.trim()).toBe('Deflated words');

    // 80 MB of text deflate to about 80 KB: well under the 20 MB read, far over what may be unpacked.
    const bomb = docxPackage(documentXml('ab'.repeat(40 * 1024 * 1024)), { deflate: true });
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const [attachment] = await reader.read([upload('bomb.docx', DOCX, bomb)]);
    expect(attachment).toMatchObject({ kind: 'note', note: expect.stringContaining('unpacks to more than 64 MB') });
  });

  it('stops extracting a PDF whose streams inflate for longer than the extraction time, and names it', async () => {
    // A worker that has loaded PDF.js is kept for the next PDF: warmed here, so that the limit times the
    // extraction alone. The limit is a second: a small PDF took over 0.2 s in CI (two test workers on
    // two cores), the large one takes several.
    await reader.read([upload('warm.pdf', 'application/pdf', deflatedPdf(10))]);
    const limits = { ...ATTACHMENT_LIMITS, extractionMs: 1000 };
    const quick = new AttachmentReader(blobs, { findByIds: async () => [] }, limits);
    const [small] = await quick.read([upload('small.pdf', 'application/pdf', deflatedPdf(10))]);
    expect(small).toMatchObject({ kind: 'text', text: 'hello' });

    // 400 MB of spaces deflate to about 400 KB; reading them all takes seconds. The inflating runs in a
    // worker, ended at the limit: this thread (an agent runtime's event loop) stays free meanwhile. Before,
    // PDF.js inflated here and went on past the limit (about 3 s, the event loop 60% busy).
    const bomb = upload('slow.pdf', 'application/pdf', deflatedPdf(400 * 1024 * 1024));
    const before = performance.eventLoopUtilization();
    const started = performance.now();
    const [slow] = await quick.read([bomb]);
    const took = performance.now() - started;
    const busy = performance.eventLoopUtilization(before).utilization;
    expect(slow).toMatchObject({ kind: 'note', note: expect.stringContaining('took longer than 1 s') });
    expect(took).toBeLessThan(2500);
    expect(busy).toBeLessThan(0.3);
  });

  it('stops extracting a DOCX whose XML takes longer than the extraction time, and names it', async () => {
    // Within the archive bound (64 MB unpacked) a DOCX's XML can still take mammoth many seconds: 30 MB
    // of paragraphs, deflated to about 0.1 MB, took 8.6 s on the runtime's own thread (the loop 99% busy).
    const paragraphs = '<w:p><w:r><w:t>lorem ipsum dolor sit amet consectetur</w:t></w:r></w:p>'.repeat(400_000);
    const large = docxPackage(
      '<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">' +
        `<w:body>${paragraphs}</w:body></w:document>`,
      { deflate: true },
    );
    const quick = new AttachmentReader(
      blobs,
      { findByIds: async () => [] },
      { ...ATTACHMENT_LIMITS, extractionMs: 1000 },
    );
    const file = upload('large.docx', DOCX, large);
    const before = performance.eventLoopUtilization();
    const started = performance.now();
    const [attachment] = await quick.read([file]);
    const took = performance.now() - started;
    expect(attachment).toMatchObject({ kind: 'note', note: expect.stringContaining('took longer than 1 s') });
    expect(took).toBeLessThan(3000);
    // The archive's bound is checked on this thread first (its chunks' callbacks); the XML, in the worker.
    // Before, mammoth kept this loop 99% busy.
    expect(performance.eventLoopUtilization(before).utilization).toBeLessThan(0.5);
  });

  it('gives an image as a data URL, and names a too large or unsupported image instead', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const big = Buffer.alloc(ATTACHMENT_LIMITS.imageBytes + 1);
    const [image, large, svg] = await reader.read([
      upload('pic.png', 'image/png', png),
      upload('huge.png', 'image/png', big),
      upload('logo.svg', 'image/svg+xml', '<svg/>'),
    ]);
    expect(image).toEqual({
      kind: 'image',
      name: 'pic.png',
      mimeType: 'image/png',
      dataUrl: `data:image/png;base64,${png.toString('base64')}`,
    });
    expect(large).toMatchObject({ kind: 'note', note: expect.stringContaining('larger than 5 MB') });
    expect(svg).toMatchObject({ kind: 'note' });
    // The large image was not read at all.
    expect(blobs.served).toBe(png.length);
  });

  it('cuts a file at 100,000 characters and all files at 200,000, with a visible marker', async () => {
    const long = 'x'.repeat(150_000);
    const [first, second, third] = await reader.read([
      upload('a.txt', 'text/plain', long),
      upload('b.txt', 'text/plain', long),
      upload('c.txt', 'text/plain', 'never shown'),
    ]);
    expect(first).toMatchObject({ kind: 'text', truncated: true });
    expect(first?.kind === 'text' && first.text.length).toBe(100_000);
    expect(first?.kind === 'text' && first.text.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(second).toMatchObject({ kind: 'text', truncated: true });
    const shown = [first, second].map((attachment) => (attachment?.kind === 'text' ? attachment.text.length : 0));
    expect(shown[0] + shown[1]).toBe(200_000);
    expect(third).toMatchObject({ kind: 'note', note: expect.stringContaining('size limit') });
  });

  it('reads at most 2 MB of a text file', async () => {
    const file = upload('big.log', 'text/plain', Buffer.alloc(3 * 1024 * 1024, 0x61));
    const [attachment] = await new AttachmentReader(
      blobs,
      { findByIds: async () => [] },
      { ...ATTACHMENT_LIMITS, fileCharacters: 10_000_000, totalCharacters: 10_000_000 },
    ).read([file]);
    expect(attachment?.kind === 'text' && attachment.text).toBe(`${'a'.repeat(2 * 1024 * 1024)}\n${TRUNCATION_MARKER}`);
    expect(blobs.served).toBe(2 * 1024 * 1024);
  });

  it('turns an unreadable, deleted or unknown-type file into a note, never an error', async () => {
    const corrupt = upload('bad.pdf', 'application/pdf', 'not a pdf');
    const gone: TurnFile = { fileId: crypto.randomUUID(), mimeType: 'text/plain', filename: 'gone.txt', blobKey: null };
    const lost = { ...upload('lost.txt', 'text/plain', 'x'), blobKey: 'uploads/nothing-here' };
    const zip = upload('archive.zip', 'application/zip', 'PK');
    const notes = await reader.read([corrupt, gone, lost, zip]);
    expect(notes.map((note) => [note.kind, note.name])).toEqual([
      ['note', 'bad.pdf'],
      ['note', 'gone.txt'],
      ['note', 'lost.txt'],
      ['note', 'archive.zip'],
    ]);
    expect(notes[3]).toMatchObject({ note: expect.stringContaining('application/zip') });
  });

  it('reads a library file like an upload, and a prompt template as its text', async () => {
    const now = new Date();
    const base = { description: null, createdAt: now, updatedAt: now };
    library.push(
      {
        ...base,
        id: crypto.randomUUID(),
        filepath: 'guides/style.md',
        title: 'Style',
        kind: 'file',
        mimeType: 'text/markdown',
        bytes: '9',
        blobKey: 'library/style',
        content: null,
      },
      {
        ...base,
        id: crypto.randomUUID(),
        filepath: 'templates/summary',
        title: 'Summary',
        kind: 'prompt_template',
        mimeType: 'text/plain',
        bytes: '12',
        blobKey: null,
        content: 'Summarize it',
      },
    );
    blobs.blobs.set('library/style', Buffer.from('Be brief.'));
    const attachments = await reader.read(
      library.map((item) => ({
        fileId: item.id,
        mimeType: item.mimeType,
        filepath: item.filepath,
        filename: item.filepath.split('/').at(-1) as string,
      })),
    );
    expect(attachments).toEqual([
      { kind: 'text', name: 'style.md', mimeType: 'text/markdown', text: 'Be brief.', truncated: false },
      { kind: 'text', name: 'summary', mimeType: 'text/plain', text: 'Summarize it', truncated: false },
    ]);
  });
});
