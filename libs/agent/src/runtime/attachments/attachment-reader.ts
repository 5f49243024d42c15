import type { TurnFile } from '@fed/conversations';
import type { BlobStore } from '@fed/storage';
import type { Readable } from 'node:stream';
import type { LibraryItemEntity } from '../../library/library.entity';
import type { LibraryRepository } from '../../library/library.repository';
import { ATTACHMENT_LIMITS, type Attachment, type AttachmentLimits, TRUNCATION_MARKER } from './attachment';
import { docxText, pdfText } from './document-text';
import { type FileFormat, MODEL_IMAGE_TYPES, formatOf } from './file-formats';
import { ZipRefusedError } from './zip-bounds';

/** Where one attachment's content is, once its reference is resolved. */
type Source =
  | { kind: 'blob'; key: string; bytes: number | undefined }
  | { kind: 'text'; text: string }
  | { kind: 'missing'; note: string };

/** The answered message's files for the model (text, images or a note); bounded; a bad file never fails the turn. */
export class AttachmentReader {
  constructor(
    private readonly blobs: BlobStore,
    private readonly library: Pick<LibraryRepository, 'findByIds'>,
    private readonly limits: AttachmentLimits = ATTACHMENT_LIMITS,
  ) {}

  async read(files: readonly TurnFile[], signal?: AbortSignal): Promise<Attachment[]> {
    if (files.length === 0) return [];
    const sources = await this.sources(files);
    let remaining = this.limits.totalCharacters;
    const attachments: Attachment[] = [];
    for (const [index, file] of files.entries()) {
      signal?.throwIfAborted();
      const name = file.filename ?? file.filepath ?? file.fileId;
      const attachment = await this.readOne(file, name, sources[index] as Source, remaining, signal);
      if (attachment.kind === 'text') remaining -= attachment.text.length;
      attachments.push(attachment);
    }
    return attachments;
  }

  private async readOne(
    file: TurnFile,
    name: string,
    source: Source,
    remaining: number,
    signal: AbortSignal | undefined,
  ): Promise<Attachment> {
    const mimeType = file.mimeType;
    const note = (text: string): Attachment => ({ kind: 'note', name, mimeType, note: text });
    if (source.kind === 'missing') return note(source.note);
    const format: FileFormat = source.kind === 'text' ? 'text' : formatOf(mimeType, name);
    if (format === 'other') return note(`The file's type (${mimeType}) cannot be read here; only its name is given.`);
    if (format === 'image' && !MODEL_IMAGE_TYPES.has(mimeType.toLowerCase())) {
      return note(`Images of type ${mimeType} cannot be shown to the model; only the file's name is given.`);
    }
    const budget = Math.min(this.limits.fileCharacters, remaining);
    if (budget <= 0 && format !== 'image') {
      return note('The attachments of this message reached their size limit: this file is not shown.');
    }
    try {
      if (source.kind === 'text') return textAttachment(name, mimeType, source.text, budget);
      if (format === 'image') {
        const { bytes, cut } = await this.readBlob(source, this.limits.imageBytes);
        if (cut) return note(`The image is larger than ${megabytes(this.limits.imageBytes)}: it is not shown.`);
        return { kind: 'image', name, mimeType, dataUrl: `data:${mimeType};base64,${bytes.toString('base64')}` };
      }
      if (format === 'text') {
        const { bytes, cut } = await this.readBlob(source, this.limits.textBytes, true);
        const attachment = textAttachment(name, mimeType, decodeUtf8(bytes), budget);
        return cut && !attachment.truncated
          ? { ...attachment, text: `${attachment.text}\n${TRUNCATION_MARKER}`, truncated: true }
          : attachment;
      }
      const { bytes, cut } = await this.readBlob(source, this.limits.documentBytes);
      if (cut) {
        return note(`The document is larger than ${megabytes(this.limits.documentBytes)}: its text is not extracted.`);
      }
      const timeout = AbortSignal.timeout(this.limits.extractionMs);
      const stop = signal ? AbortSignal.any([signal, timeout]) : timeout;
      const text =
        format === 'pdf' ? await pdfText(bytes, stop) : await docxText(bytes, this.limits.unpackedDocumentBytes, stop);
      if (text.trim().length === 0) return note('The document has no extractable text.');
      return textAttachment(name, mimeType, sanitized(text), budget);
    } catch (error) {
      if (!signal?.aborted && isTimeout(error)) {
        return note(
          `The document's text took longer than ${this.limits.extractionMs / 1000} s to extract: it is not given.`,
        );
      }
      if (error instanceof ZipRefusedError) {
        return note(
          `The document unpacks to more than ${megabytes(this.limits.unpackedDocumentBytes)} (or is not a plain ZIP archive): its text is not extracted.`,
        );
      }
      return note('The file could not be read.');
    }
  }

  /** The first `limit` bytes (of a larger blob only with `prefix`) and whether there was more; never reads it all. */
  private async readBlob(
    source: Extract<Source, { kind: 'blob' }>,
    limit: number,
    prefix = false,
  ): Promise<{ bytes: Buffer; cut: boolean }> {
    // Only a text file is of use cut short: a larger image or document is not read at all.
    if (!prefix && source.bytes !== undefined && source.bytes > limit) return { bytes: Buffer.alloc(0), cut: true };
    const stream = await this.blobs.get(
      source.key,
      source.bytes !== undefined && source.bytes > limit ? { start: 0, end: limit - 1 } : undefined,
    );
    const chunks: Buffer[] = [];
    let length = 0;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        chunks.push(chunk);
        length += chunk.length;
        if (length > limit) break;
      }
    } finally {
      (stream as Readable).destroy();
    }
    const bytes = Buffer.concat(chunks, length);
    const cut = bytes.length > limit || (source.bytes !== undefined && source.bytes > limit);
    return { bytes: cut ? bytes.subarray(0, limit) : bytes, cut };
  }

  /** Library files are looked up in one query; uploads come with their blob from the ledger. */
  private async sources(files: readonly TurnFile[]): Promise<Source[]> {
    const libraryIds = files.filter((file) => file.filepath !== undefined).map((file) => file.fileId);
    const items = new Map<string, LibraryItemEntity>(
      (await this.library.findByIds(libraryIds)).map((item) => [item.id, item]),
    );
    return files.map((file): Source => {
      if (file.filepath === undefined) {
        if (!file.blobKey) return { kind: 'missing', note: 'The file was deleted after it was attached.' };
        return { kind: 'blob', key: file.blobKey, bytes: file.bytes };
      }
      const item = items.get(file.fileId);
      if (!item) return { kind: 'missing', note: 'The library item was removed after it was attached.' };
      if (item.kind === 'prompt_template') return { kind: 'text', text: item.content ?? '' };
      if (!item.blobKey) return { kind: 'missing', note: 'The library file has no content.' };
      return { kind: 'blob', key: item.blobKey, bytes: Number(item.bytes) };
    });
  }
}

function textAttachment(
  name: string,
  mimeType: string,
  text: string,
  budget: number,
): Extract<Attachment, { kind: 'text' }> {
  if (text.length <= budget) return { kind: 'text', name, mimeType, text, truncated: false };
  // The marker counts in the budget; the cut is not inside a surrogate pair.
  let end = Math.max(0, budget - TRUNCATION_MARKER.length - 1);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return { kind: 'text', name, mimeType, text: `${text.slice(0, end)}\n${TRUNCATION_MARKER}`, truncated: true };
}

/** UTF-8 with invalid bytes replaced (U+FFFD); a BOM dropped. */
function decodeUtf8(bytes: Buffer): string {
  return sanitized(new TextDecoder('utf-8', { fatal: false, ignoreBOM: false }).decode(bytes));
}

/** NUL cannot travel everywhere a prompt goes (PostgreSQL text of the gateway's logs): replaced. */
function sanitized(text: string): string {
  return text.replace(/\u0000/g, '\uFFFD');
}

// Duck-typed: AbortSignal.timeout()'s DOMException may come from another realm (Jest's).
function isTimeout(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'name' in error && error.name === 'TimeoutError';
}

function megabytes(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}
