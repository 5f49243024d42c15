import { type PageQuery, isUuid, toCursorPage } from '@fed/contracts';
import { type BlobStore, BlobTooLargeError, sweepUnreferencedBlobs } from '@fed/storage';
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type ConversationOwner, type ListOwner } from '../conversation-owner';
import { listsAgents } from '../list-owner.sql';
import { sendBlob } from './blob-response';
import { HEAD_BYTES, UploadMeter, describeFile } from './file-facts';
import {
  FILE_LIST,
  type FileDeletedResponse,
  type FileListResponse,
  type UploadedFileResponse,
  filePage,
  filenameRefusal,
  toFileResponse,
  toUploadedFileResponse,
} from './files.dto';
import { FilesError } from './files.errors';
import { type FilesRepository } from './files.repository';
import { UploadCutOffError, receiveUpload } from './multipart-upload';

/** Spec, Limits: an uploaded file is at most 512 MB. */
export const MAX_UPLOAD_BYTES = 512 * 1024 * 1024;
/** Where uploads live in the blob store; the sweeper owns this prefix. */
export const UPLOADS_PREFIX = 'uploads/';
// The multipart framing and the filename field around the file part.
const MULTIPART_OVERHEAD_BYTES = 1024 * 1024;
const SWEEP_BATCH = 500;

const notFound = () => new FilesError('file_not_found', 'file not found');

export interface FilesOptions {
  maxUploadBytes?: number;
  /** How often an upload in progress refreshes its row (`touched_at`), far below the sweep age. */
  touchIntervalMs?: number;
}

/** Half the shortest sweep age (60 s, FILES_SWEEP_AGE_SECONDS), so a slow upload is still seen alive. */
const TOUCH_INTERVAL_MS = 30_000;

export interface SweepResult {
  /** Rows still `uploading` after the sweep age, deleted with their blobs. */
  uploads: number;
  /** Blobs under `uploads/` without a row, older than the sweep age. */
  orphanBlobs: number;
}

/** Uploaded files of document 2: upload, list, download, delete, and the sweep of abandoned uploads. */
export class FilesService {
  private readonly maxUploadBytes: number;
  private readonly touchIntervalMs: number;

  constructor(
    private readonly files: FilesRepository,
    private readonly store: BlobStore,
    options: FilesOptions = {},
  ) {
    this.maxUploadBytes = options.maxUploadBytes ?? MAX_UPLOAD_BYTES;
    this.touchIntervalMs = options.touchIntervalMs ?? TOUCH_INTERVAL_MS;
  }

  /** The row (`uploading`) precedes the first stored byte and turns `stored` at the end; any failure removes both. */
  async upload(owner: ConversationOwner, request: IncomingMessage): Promise<UploadedFileResponse> {
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > this.maxUploadBytes + MULTIPART_OVERHEAD_BYTES) {
      throw tooLarge(this.maxUploadBytes, request);
    }
    const fileId = randomUUID();
    const blobKey = `${UPLOADS_PREFIX}${fileId}`;
    let rowWritten = false;
    let meter: UploadMeter | undefined;
    try {
      const received = await receiveUpload(request, {
        checkFilename: filenameRefusal,
        storeFile: async (file: Readable, signal: AbortSignal) => {
          await this.files.insertUploading(owner, { id: fileId, blobKey });
          rowWritten = true;
          const metered = new UploadMeter(this.maxUploadBytes);
          meter = metered;
          // A long upload (a slow link) stays alive for the sweep while its bytes keep arriving.
          let received = 0;
          const touch = setInterval(() => {
            if (metered.bytes === received) return;
            received = metered.bytes;
            this.files.touchUploading(fileId).catch(() => undefined);
          }, this.touchIntervalMs);
          try {
            await Promise.all([
              pipeline(file, metered),
              this.store.put(blobKey, metered, { maxBytes: this.maxUploadBytes, signal }),
            ]);
          } finally {
            clearInterval(touch);
          }
          return metered;
        },
      });
      const stored = received.stored;
      const row = await this.files.markStored(fileId, {
        filename: received.filename,
        bytes: stored.bytes,
        ...describeFile(stored.head, received.filename),
      });
      // Swept as abandoned: no byte arrived for the whole sweep age. The client's fault, and it may retry.
      if (!row)
        throw new FilesError('upload_stalled', 'the upload stalled for longer than the server waits; send it again');
      return toUploadedFileResponse(row);
    } catch (error) {
      await this.removeUpload(fileId, blobKey, rowWritten);
      if (meter?.exceeded || error instanceof BlobTooLargeError) throw tooLarge(this.maxUploadBytes, request);
      if (error instanceof UploadCutOffError)
        throw withConnectionClose(new FilesError('upload_refused', error.message));
      if (error instanceof FilesError) throw request.complete ? error : withConnectionClose(error);
      throw error;
    }
  }

  /** An inline protocol file (A2A file parts, MCP `execute_chat` files), stored as an upload under the same rules. */
  async storeBytes(
    owner: ConversationOwner,
    file: { filename: string; bytes: Buffer },
  ): Promise<UploadedFileResponse & { mimeType: string }> {
    const refusal = filenameRefusal(file.filename);
    if (refusal) throw new FilesError('invalid_filename', refusal);
    if (file.bytes.length > this.maxUploadBytes) {
      throw new FilesError('file_too_large', `the file is larger than ${this.maxUploadBytes / (1024 * 1024)} MB`);
    }
    const fileId = randomUUID();
    const blobKey = `${UPLOADS_PREFIX}${fileId}`;
    await this.files.insertUploading(owner, { id: fileId, blobKey });
    try {
      await this.store.put(blobKey, Readable.from([file.bytes]), { maxBytes: this.maxUploadBytes });
      const facts = describeFile(file.bytes.subarray(0, HEAD_BYTES), file.filename);
      const row = await this.files.markStored(fileId, { filename: file.filename, bytes: file.bytes.length, ...facts });
      if (!row) throw new FilesError('file_not_stored', 'the file could not be stored; send it again');
      return { ...toUploadedFileResponse(row), mimeType: facts.mimeType };
    } catch (error) {
      await this.removeUpload(fileId, blobKey, true);
      throw error;
    }
  }

  /** The owner's stored files; in the Marketplace edition each names its `agentId`. */
  async list(owner: ListOwner, query: PageQuery): Promise<FileListResponse> {
    const params = filePage(query);
    const rows = await this.files.list(owner, params);
    const page = toCursorPage(rows, params, FILE_LIST, (row) => [row.createdAtKey, row.id]);
    const named = listsAgents(owner);
    return {
      files: page.items.map((row) => ({ ...toFileResponse(row), ...(named ? { agentId: row.agentId } : {}) })),
      hasMore: page.hasMore,
      ...(page.cursor ? { cursor: page.cursor } : {}),
    };
  }

  /** `GET /v1/files/:file_id/content`: the exact bytes, ranges included (sendBlob). */
  async sendContent(
    owner: ConversationOwner,
    fileId: string,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    const row = await this.files.find(owner, fileId);
    if (!row) throw notFound();
    await sendBlob(request, response, {
      store: this.store,
      key: row.blobKey,
      bytes: Number(row.bytes),
      mimeType: row.mimeType,
      filename: row.filename,
      etag: row.id,
    });
  }

  /** The row goes first (one statement), so the file is gone for every reader before its bytes are. */
  async delete(owner: ConversationOwner, fileId: string): Promise<FileDeletedResponse> {
    const blobKey = await this.files.delete(owner, fileId);
    if (!blobKey) throw notFound();
    // A blob left behind by a failure here has no row any more: the sweep removes it.
    await this.store.delete(blobKey).catch(() => undefined);
    return { fileId, deleted: true };
  }

  /** Deletes uploads unfinished after `ageSeconds`, and blobs that old without a row (a failed cleanup). */
  async sweep(ageSeconds: number, options: { at?: Date; shouldStop?: () => boolean } = {}): Promise<SweepResult> {
    const shouldStop = options.shouldStop ?? (() => false);
    const cutoff = new Date((options.at ?? new Date()).getTime() - ageSeconds * 1000);
    const result: SweepResult = { uploads: 0, orphanBlobs: 0 };
    for (;;) {
      const blobKeys = await this.files.deleteStaleUploads(cutoff, SWEEP_BATCH);
      for (const blobKey of blobKeys) await this.store.delete(blobKey);
      result.uploads += blobKeys.length;
      if (blobKeys.length < SWEEP_BATCH || shouldStop()) break;
    }
    result.orphanBlobs = await sweepUnreferencedBlobs(this.store, UPLOADS_PREFIX, {
      olderThan: cutoff,
      shouldStop,
      batchSize: SWEEP_BATCH,
      referenced: (keys) => this.referencedUploadKeys(keys),
    });
    return result;
  }

  /** The keys under `uploads/` whose file has a row (in any state); ids are matched as uuids. */
  private async referencedUploadKeys(keys: readonly string[]): Promise<Set<string>> {
    const idOf = (key: string) => key.slice(UPLOADS_PREFIX.length).toLowerCase();
    const existing = await this.files.existingIds(keys.map(idOf).filter((id) => isUuid(id)));
    return new Set(keys.filter((key) => existing.has(idOf(key))));
  }

  private async removeUpload(fileId: string, blobKey: string, rowWritten: boolean): Promise<void> {
    if (!rowWritten) return;
    // Blob first: if its delete fails, the row (still `uploading`) makes the sweep retry both.
    try {
      await this.store.delete(blobKey);
      await this.files.deleteUploading(fileId);
    } catch {
      // Left for the sweep.
    }
  }
}

function withConnectionClose(error: FilesError): FilesError {
  return error.withHeaders({ Connection: 'close' });
}

// Sent while the client may still be sending: closing the connection skips reading the rest.
function tooLarge(maxBytes: number, request: IncomingMessage): FilesError {
  const error = new FilesError('file_too_large', `the file is larger than ${maxBytes / (1024 * 1024)} MB`);
  return request.complete ? error : withConnectionClose(error);
}
