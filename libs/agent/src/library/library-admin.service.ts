import { isUuid } from '@fed/contracts';
import { type BlobStore, BlobTooLargeError } from '@fed/storage';
import { lookup } from 'mime-types';
import { randomUUID } from 'node:crypto';
import { type IncomingMessage } from 'node:http';
import { type Readable } from 'node:stream';
import { LibraryUploadCutOffError, receiveLibraryUpload } from './library-upload';
import { type LibraryItemEntity } from './library.entity';
import { LibraryError } from './library.errors';
import { type LibraryRepository } from './library.repository';
import {
  LIBRARY_FILE_MAX_BYTES,
  checkDescription,
  checkFilepath,
  checkMimeType,
  checkTemplate,
  checkTitle,
} from './library.rules';

export interface LibraryFileFields {
  title?: string;
  description?: string;
  /** Omitted: guessed from the filepath's extension. */
  mimeType?: string;
}

export interface LibraryTemplateFields {
  title: string;
  description?: string;
  text: string;
}

/** Where library files live in the blob store; the library sweep owns this prefix. */
export const LIBRARY_PREFIX = 'library/';

export function libraryBlobKey(id: string): string {
  return `${LIBRARY_PREFIX}${id}`;
}

export interface LibraryPage {
  items: LibraryItemEntity[];
  total: number;
}

// The multipart framing and the text fields around the file part.
const MULTIPART_OVERHEAD_BYTES = 1024 * 1024;

/**
 * What an administrator does to the library: publish files and templates, list, remove. platformctl and
 * `/api/v1/admin/library` call the same methods.
 */
export class LibraryAdminService {
  private readonly maxFileBytes: number;

  constructor(
    private readonly repository: LibraryRepository,
    private readonly blobs: BlobStore,
    /** `maxFileBytes`: LIBRARY_FILE_MAX_BYTES (document 2's upload limit) unless a test sets less. */
    options: { maxFileBytes?: number } = {},
  ) {
    this.maxFileBytes = options.maxFileBytes ?? LIBRARY_FILE_MAX_BYTES;
  }

  /**
   * A multipart upload (fields `filepath`, `title`, `description`, `mimeType`, then the part `file`), stored as
   * `addFile` stores a local file. A body that says it is too large is refused before it is read.
   */
  async uploadFile(request: IncomingMessage): Promise<LibraryItemEntity> {
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > this.maxFileBytes + MULTIPART_OVERHEAD_BYTES) {
      throw closing(this.tooLarge(), request);
    }
    let published: LibraryItemEntity | undefined;
    try {
      return await receiveLibraryUpload(request, async (fields, file, signal) => {
        published = await this.addFile(
          fields.filepath ?? '',
          {
            ...(fields.title !== undefined ? { title: fields.title } : {}),
            ...(fields.description !== undefined ? { description: fields.description } : {}),
            ...(fields.mimeType !== undefined ? { mimeType: fields.mimeType } : {}),
          },
          file,
          { signal },
        );
        return published;
      });
    } catch (error) {
      // The file was stored before the rest of the body failed (a second file, a late field): it goes too.
      if (published) await this.removeById(published.id).catch(() => undefined);
      if (error instanceof LibraryUploadCutOffError) {
        throw closing(new LibraryError('invalid_upload', error.message), request);
      }
      if (error instanceof LibraryError) throw closing(error, request);
      throw error;
    }
  }

  /** Streams `body` to the blob store, then writes the row; a taken filepath leaves no blob behind. */
  async addFile(
    filepath: string,
    fields: LibraryFileFields,
    body: Readable,
    options: { signal?: AbortSignal } = {},
  ): Promise<LibraryItemEntity> {
    const base = this.baseItem(filepath, fields.title ?? filepath.split('/').at(-1) ?? filepath, fields.description);
    const mimeType = fields.mimeType === undefined ? undefined : checkMimeType(fields.mimeType);
    // Checked first so a large file is not uploaded for nothing; the insert below is what decides.
    if (await this.repository.findByFilepath(base.filepath)) throw taken(base.filepath);
    const blobKey = libraryBlobKey(base.id);
    let bytes: number;
    try {
      ({ bytes } = await this.blobs.put(blobKey, body, { maxBytes: this.maxFileBytes, signal: options.signal }));
    } catch (error) {
      if (error instanceof BlobTooLargeError) throw this.tooLarge();
      throw error;
    }
    const item: LibraryItemEntity = {
      ...base,
      kind: 'file',
      mimeType: mimeType ?? (lookup(base.filepath) || 'application/octet-stream'),
      bytes: String(bytes),
      blobKey,
      content: null,
    };
    let inserted: boolean;
    try {
      inserted = await this.repository.insert(item);
    } catch (error) {
      // No row will ever name this blob: it goes now rather than at the next sweep.
      await this.blobs.delete(blobKey).catch(() => undefined);
      throw error;
    }
    if (!inserted) {
      await this.blobs.delete(blobKey);
      throw taken(base.filepath);
    }
    return item;
  }

  async addTemplate(filepath: string, fields: LibraryTemplateFields): Promise<LibraryItemEntity> {
    const text = checkTemplate(fields.text);
    const item: LibraryItemEntity = {
      ...this.baseItem(filepath, fields.title, fields.description),
      kind: 'prompt_template',
      mimeType: 'text/plain',
      bytes: String(Buffer.byteLength(text, 'utf8')),
      blobKey: null,
      content: text,
    };
    if (!(await this.repository.insert(item))) throw taken(item.filepath);
    return item;
  }

  list(): Promise<LibraryItemEntity[]> {
    return this.repository.all();
  }

  /** A numbered page in filepath order (as `list`), and how many items there are. */
  async page(params: { offset: number; limit: number }): Promise<LibraryPage> {
    const [items, total] = await this.repository.numberedPage(params.offset, params.limit);
    return { items, total };
  }

  /** The row first (turns stop finding it), then the blob. */
  async remove(filepath: string): Promise<void> {
    const removed = await this.repository.deleteByFilepath(filepath);
    if (!removed) throw new LibraryError('item_not_found', `no library item at ${filepath}`);
    await this.deleteBlob(removed.blobKey);
  }

  /** As `remove`, by the item's id (a UUID; any other string names no item). */
  async removeById(itemId: string): Promise<{ filepath: string }> {
    const removed = isUuid(itemId) ? await this.repository.deleteById(itemId) : null;
    if (!removed) throw new LibraryError('item_not_found', `no library item ${JSON.stringify(itemId.slice(0, 64))}`);
    await this.deleteBlob(removed.blobKey);
    return { filepath: removed.filepath };
  }

  // A blob left behind by a failure here has no row any more: the library sweep removes it.
  private async deleteBlob(blobKey: string | null): Promise<void> {
    if (blobKey) await this.blobs.delete(blobKey).catch(() => undefined);
  }

  private tooLarge(): LibraryError {
    return new LibraryError('file_too_large', `a library file is at most ${this.maxFileBytes} bytes`);
  }

  private baseItem(
    filepath: string,
    title: string,
    description: string | undefined,
  ): Pick<LibraryItemEntity, 'id' | 'filepath' | 'title' | 'description' | 'createdAt' | 'updatedAt'> {
    const now = new Date();
    return {
      id: randomUUID(),
      filepath: checkFilepath(filepath),
      title: checkTitle(title),
      description: description === undefined || description === '' ? null : checkDescription(description),
      createdAt: now,
      updatedAt: now,
    };
  }
}

/** An answer sent while the body is still arriving closes the connection: the rest is not read. */
function closing(error: LibraryError, request: IncomingMessage): LibraryError {
  return request.complete ? error : error.withHeaders({ Connection: 'close' });
}

function taken(filepath: string): LibraryError {
  return new LibraryError('filepath_exists', `a library item already has the filepath ${filepath}`);
}
