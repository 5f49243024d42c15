import { createInflateRaw } from 'node:zlib';

// mammoth unzips a DOCX whole into memory (JSZip), so a small archive can inflate to gigabytes. Entries are first
// inflated here as a stream, counted and discarded, found as JSZip finds them, so what is counted is what mammoth
// would inflate; anything this reader does not follow is refused.

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_FILE_HEADER = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;
const MAX_COMMENT = 0xffff;
const STORED = 0;
const DEFLATED = 8;
const MAX_ENTRIES = 10_000;

/** The archive inflates past the bound, or is not one this reader can measure. */
export class ZipRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZipRefusedError';
  }
}

/** Resolves when every entry of the ZIP archive `bytes` inflates to at most `maxBytes` in all; else throws. */
export async function assertZipInflatesWithin(bytes: Buffer, maxBytes: number): Promise<void> {
  const end = endOfCentralDirectory(bytes);
  const directorySize = bytes.readUInt32LE(end + 12);
  const directoryOffset = bytes.readUInt32LE(end + 16);
  if (bytes.readUInt16LE(end + 10) === 0xffff || directorySize === 0xffffffff || directoryOffset === 0xffffffff) {
    throw new ZipRefusedError('ZIP64 archives are not read');
  }
  // JSZip moves every offset when bytes precede the archive: such an archive is not measured here.
  if (directoryOffset + directorySize !== end) throw new ZipRefusedError('the central directory is not where it says');

  let total = 0;
  let entries = 0;
  for (let at = directoryOffset; at + 46 <= bytes.length && bytes.readUInt32LE(at) === CENTRAL_FILE_HEADER;) {
    if (++entries > MAX_ENTRIES) throw new ZipRefusedError(`more than ${MAX_ENTRIES} entries`);
    const method = bytes.readUInt16LE(at + 10);
    const compressedSize = bytes.readUInt32LE(at + 20);
    const localOffset = bytes.readUInt32LE(at + 42);
    if (compressedSize === 0xffffffff || localOffset === 0xffffffff)
      throw new ZipRefusedError('ZIP64 entries are not read');
    const data = entryData(bytes, localOffset, compressedSize);
    const budget = maxBytes - total;
    if (method === STORED) total += data.length;
    else if (method === DEFLATED) total += await inflatedLength(data, budget);
    else throw new ZipRefusedError(`compression method ${method} is not read`);
    if (total > maxBytes) throw new ZipRefusedError(`the archive inflates past ${maxBytes} bytes`);
    at += 46 + bytes.readUInt16LE(at + 28) + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
  }
  if (entries === 0) throw new ZipRefusedError('the archive has no entries');
}

/** The offset of the last end-of-central-directory record (JSZip takes the last one too). */
function endOfCentralDirectory(bytes: Buffer): number {
  const lowest = Math.max(0, bytes.length - 22 - MAX_COMMENT);
  for (let at = bytes.length - 22; at >= lowest; at--) {
    if (bytes.readUInt32LE(at) === END_OF_CENTRAL_DIRECTORY) return at;
  }
  throw new ZipRefusedError('not a ZIP archive');
}

function entryData(bytes: Buffer, localOffset: number, compressedSize: number): Buffer {
  if (localOffset + 30 > bytes.length || bytes.readUInt32LE(localOffset) !== LOCAL_FILE_HEADER) {
    throw new ZipRefusedError('an entry has no local header');
  }
  const start = localOffset + 30 + bytes.readUInt16LE(localOffset + 26) + bytes.readUInt16LE(localOffset + 28);
  if (start + compressedSize > bytes.length) throw new ZipRefusedError('an entry runs past the archive');
  return bytes.subarray(start, start + compressedSize);
}

/** What `deflated` inflates to, counted chunk by chunk and never held; throws once it passes `budget`. */
function inflatedLength(deflated: Buffer, budget: number): Promise<number> {
  return new Promise((resolve, reject) => {
    // Large chunks: each chunk is an event-loop callback, so small ones keep the loop busy.
    const inflate = createInflateRaw({ chunkSize: 256 * 1024 });
    let length = 0;
    inflate.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length > budget) {
        inflate.destroy();
        reject(new ZipRefusedError(`the archive inflates past its bound`));
      }
    });
    inflate.on('error', (error) => reject(new ZipRefusedError(`an entry does not inflate: ${error.message}`)));
    inflate.on('end', () => resolve(length));
    inflate.end(deflated);
  });
}
