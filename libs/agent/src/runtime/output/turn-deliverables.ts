import type { Deliverable } from '@fed/contracts';
import { type ClaimedTurn, type SavedDeliverable, type TurnLedger, deliverablePathProblem } from '@fed/conversations';
import type { Logger } from '@fed/observability';
import type { BlobStore } from '@fed/storage';
import { lookup } from 'mime-types';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { DeliverableInput, DeliverableSink } from '../tools/agent-tool';

/** A deliverable's bytes at most (UTF-8 for text). */
export const MAX_DELIVERABLE_BYTES = 5 * 1024 * 1024;
const MIME_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** A file the sink refuses (its path, size or type): the tool's failure, told to the model. */
export class DeliverableRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeliverableRefusedError';
  }
}

/** The type given (lowercase), else the one of the file name's extension, else none. */
function mimeTypeOf(filename: string, given: string | undefined): string | undefined {
  if (given !== undefined) {
    const type = given.trim().toLowerCase();
    if (!MIME_TYPE.test(type)) throw new DeliverableRefusedError('mimeType must be a media type such as text/csv');
    return type;
  }
  return lookup(filename) || undefined;
}

/** Output files: blobs under `deliverables/<conversationId>/<messageId>/<id>`, one ledger row per message and path. */
export class DeliverableStore {
  constructor(
    private readonly ledger: TurnLedger,
    private readonly blobs: BlobStore,
    private readonly logger: Logger,
  ) {}

  /** The sink of one attempt of a turn. What an earlier attempt wrote (and never showed) is removed first. */
  async open(turn: ClaimedTurn, signal: AbortSignal): Promise<DeliverableSink> {
    const stale = await this.ledger.clearDeliverables(turn.runId);
    await Promise.all(stale.map((key) => this.removeBlob(key, turn.runId)));
    return { save: (file) => this.save(turn, file, signal) };
  }

  private async save(turn: ClaimedTurn, file: DeliverableInput, signal: AbortSignal): Promise<Deliverable> {
    const problem = deliverablePathProblem(file.filepath);
    if (problem) throw new DeliverableRefusedError(problem);
    const bytes = typeof file.content === 'string' ? Buffer.from(file.content, 'utf8') : file.content;
    if (bytes.length > MAX_DELIVERABLE_BYTES) {
      throw new DeliverableRefusedError(`a file may have at most ${MAX_DELIVERABLE_BYTES} bytes`);
    }
    const filename = file.filepath.slice(file.filepath.lastIndexOf('/') + 1);
    const mimeType = mimeTypeOf(filename, file.mimeType);
    // A rewrite gets a new id and blob: the old bytes stay whole until the row points elsewhere.
    const id = randomUUID();
    const blobKey = `deliverables/${turn.conversationId}/${turn.runId}/${id}`;
    await this.blobs.put(blobKey, Readable.from([bytes]), {
      maxBytes: MAX_DELIVERABLE_BYTES,
      ...(mimeType ? { contentType: mimeType } : {}),
      signal,
    });
    let saved: SavedDeliverable | null;
    try {
      saved = await this.ledger.saveDeliverable(turn.runId, {
        id,
        filepath: file.filepath,
        filename,
        ...(mimeType ? { mimeType } : {}),
        size: bytes.length,
        primary: file.primary === true,
        blobKey,
      });
    } catch (error) {
      await this.removeBlob(blobKey, turn.runId);
      throw error;
    }
    if (!saved) {
      await this.removeBlob(blobKey, turn.runId);
      throw new Error('the turn is no longer processing');
    }
    // Read in the transaction that replaced it: a rewrite racing this one cannot leave its blob behind.
    if (saved.replacedBlobKey) await this.removeBlob(saved.replacedBlobKey, turn.runId);
    return saved.deliverable;
  }

  // A blob left behind costs space, never correctness: no row points at it.
  private async removeBlob(key: string, runId: string): Promise<void> {
    await this.blobs
      .delete(key)
      .catch((error: unknown) => this.logger.warn({ err: error, runId, key }, 'deliverable blob could not be deleted'));
  }
}
