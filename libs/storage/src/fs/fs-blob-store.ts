import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertBlobKey, assertBlobPrefix, assertBlobRange } from '../blob-keys';
import { ByteLimit, STREAM_BUFFER_BYTES, abortReason } from '../byte-limit';
import {
  type BlobInfo,
  BlobNotFoundError,
  type BlobRange,
  type BlobStore,
  type BlobWriteOptions,
  type StoredBlob,
} from '../ports/blob-store';

const TEMPORARY_DIR = '.tmp';
const DIRECTORY_MODE = 0o700;
const FILE_MODE = 0o600;

// Duck-typed: errors of node:fs may come from another realm (Jest's), where `instanceof Error` fails.
const codeOf = (error: unknown) =>
  typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;

const isMissing = (error: unknown) => codeOf(error) === 'ENOENT' || codeOf(error) === 'ENOTDIR';

const isDirectoryError = (error: unknown) => codeOf(error) === 'EISDIR';

const isAbortError = (error: unknown) =>
  typeof error === 'object' && error !== null && 'name' in error && error.name === 'AbortError';

/**
 * Writes go to `.tmp/` on the same filesystem and are renamed into place, so a reader never sees a part,
 * even with several processes sharing the directory.
 */
export class FsBlobStore implements BlobStore {
  private readonly root: string;
  private readonly temporaryDir: string;

  constructor(root: string) {
    this.root = path.resolve(root);
    this.temporaryDir = path.join(this.root, TEMPORARY_DIR);
  }

  async prepare(): Promise<void> {
    await mkdir(this.temporaryDir, { recursive: true, mode: DIRECTORY_MODE });
  }

  async put(key: string, body: Readable, options: BlobWriteOptions = {}): Promise<StoredBlob> {
    assertBlobKey(key);
    const { signal, maxBytes } = options;
    if (signal?.aborted) {
      body.destroy();
      throw abortReason(signal);
    }
    await this.prepare();
    const temporary = path.join(this.temporaryDir, randomUUID());
    const limit = new ByteLimit(maxBytes);
    try {
      // fsync before close, so the rename never publishes bytes still only in the page cache.
      const file = createWriteStream(temporary, {
        flags: 'wx',
        mode: FILE_MODE,
        flush: true,
        highWaterMark: STREAM_BUFFER_BYTES,
      });
      await pipeline(body, limit, file, signal ? { signal } : {});
      if (signal?.aborted) throw abortReason(signal);
      const target = this.pathOf(key);
      await mkdir(path.dirname(target), { recursive: true, mode: DIRECTORY_MODE });
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true });
      if (signal?.aborted && isAbortError(error)) throw abortReason(signal);
      throw error;
    }
    return { key, bytes: limit.bytes };
  }

  async get(key: string, range?: BlobRange): Promise<Readable> {
    assertBlobKey(key);
    if (range) assertBlobRange(range);
    // Opened first: a missing key is an error of get(), not of the stream, and a later replace or delete
    // does not change what is read.
    let handle: FileHandle;
    try {
      handle = await open(this.pathOf(key), 'r');
    } catch (error) {
      if (isMissing(error) || isDirectoryError(error)) throw new BlobNotFoundError(key);
      throw error;
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw new BlobNotFoundError(key);
    } catch (error) {
      await handle.close();
      throw error;
    }
    return createReadStream('', {
      fd: handle,
      highWaterMark: STREAM_BUFFER_BYTES,
      ...(range ? { start: range.start, end: range.end } : {}),
    });
  }

  async stat(key: string): Promise<BlobInfo | null> {
    assertBlobKey(key);
    try {
      const info = await stat(this.pathOf(key));
      return info.isFile() ? { key, bytes: info.size, lastModified: new Date(info.mtimeMs) } : null;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    assertBlobKey(key);
    try {
      await unlink(this.pathOf(key));
    } catch (error) {
      if (isMissing(error) || isDirectoryError(error)) return;
      throw error;
    }
  }

  async *list(prefix: string): AsyncIterable<BlobInfo> {
    assertBlobPrefix(prefix);
    // Only the directory the prefix names is walked, not the whole tree.
    const directory = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
    for await (const info of this.walk(directory)) {
      if (info.key.startsWith(prefix)) yield info;
    }
  }

  /** Temporary files of writes that never finished (a crash). */
  async sweepTemporary(olderThanMs: number): Promise<number> {
    const cutoff = Date.now() - olderThanMs;
    let removed = 0;
    let names: string[];
    try {
      names = await readdir(this.temporaryDir);
    } catch (error) {
      if (isMissing(error)) return 0;
      throw error;
    }
    for (const name of names) {
      const file = path.join(this.temporaryDir, name);
      try {
        const info = await lstat(file);
        if (info.mtimeMs >= cutoff) continue;
        await rm(file, { force: true, recursive: true });
        removed++;
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    }
    return removed;
  }

  private pathOf(key: string): string {
    return path.join(this.root, ...key.split('/'));
  }

  private async *walk(directory: string): AsyncGenerator<BlobInfo> {
    let entries;
    try {
      entries = await readdir(path.join(this.root, directory), { withFileTypes: true });
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (directory === '' && entry.name === TEMPORARY_DIR) continue;
      const key = directory === '' ? entry.name : `${directory}/${entry.name}`;
      if (entry.isDirectory()) {
        yield* this.walk(key);
      } else if (entry.isFile()) {
        try {
          const info = await stat(path.join(this.root, directory, entry.name));
          yield { key, bytes: info.size, lastModified: new Date(info.mtimeMs) };
        } catch (error) {
          // Deleted while the walk went by.
          if (!isMissing(error)) throw error;
        }
      }
    }
  }
}
