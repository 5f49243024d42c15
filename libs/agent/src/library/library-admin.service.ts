import { type BlobStore, BlobTooLargeError } from '@fed/storage';
import { lookup } from 'mime-types';
import { randomUUID } from 'node:crypto';
import { type Readable } from 'node:stream';
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

/** What an administrator does to the library (platformctl): publish files and templates, list, remove. */
export class LibraryAdminService {
  constructor(
    private readonly repository: LibraryRepository,
    private readonly blobs: BlobStore,
  ) {}

  /** Streams `body` to the blob store, then writes the row; a taken filepath leaves no blob behind. */
  async addFile(filepath: string, fields: LibraryFileFields, body: Readable): Promise<LibraryItemEntity> {
    const base = this.baseItem(filepath, fields.title ?? filepath.split('/').at(-1) ?? filepath, fields.description);
    const mimeType = fields.mimeType === undefined ? undefined : checkMimeType(fields.mimeType);
    // Checked first so a large file is not uploaded for nothing; the insert below is what decides.
    if (await this.repository.findByFilepath(base.filepath)) throw taken(base.filepath);
    const blobKey = libraryBlobKey(base.id);
    let bytes: number;
    try {
      ({ bytes } = await this.blobs.put(blobKey, body, { maxBytes: LIBRARY_FILE_MAX_BYTES }));
    } catch (error) {
      if (error instanceof BlobTooLargeError) {
        throw new LibraryError('invalid_file', `a library file is at most ${LIBRARY_FILE_MAX_BYTES} bytes`);
      }
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

  /** The row first (turns stop finding it), then the blob. */
  async remove(filepath: string): Promise<void> {
    const removed = await this.repository.deleteByFilepath(filepath);
    if (!removed) throw new LibraryError('item_not_found', `no library item at ${filepath}`);
    if (removed.blobKey) await this.blobs.delete(removed.blobKey);
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

function taken(filepath: string): LibraryError {
  return new LibraryError('filepath_exists', `a library item already has the filepath ${filepath}`);
}
