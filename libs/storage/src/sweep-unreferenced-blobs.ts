import { assertBlobPrefix } from './blob-keys';
import { type BlobStore } from './ports/blob-store';

export interface UnreferencedBlobSweep {
  /** Only blobs last modified before this are candidates: a newer one may be waiting for its row. */
  olderThan: Date;
  /** Which of `keys` a row still names (the owner's lookup, one query per batch); the rest are deleted. */
  referenced(keys: readonly string[]): Promise<ReadonlySet<string>>;
  /** Checked before each blob; true ends the sweep early, with what it deleted so far. */
  shouldStop?: () => boolean;
  /** Keys per `referenced` call. Default 500. */
  batchSize?: number;
}

const DEFAULT_BATCH_SIZE = 500;

/**
 * Deletes the blobs under `prefix` older than `olderThan` whose key no row references: blobs written
 * before their row by a process that died in between, or left by a delete that failed after the row
 * went. Lists, asks the owner about each batch, deletes the rest; returns how many were deleted.
 */
export async function sweepUnreferencedBlobs(
  store: BlobStore,
  prefix: string,
  sweep: UnreferencedBlobSweep,
): Promise<number> {
  assertBlobPrefix(prefix);
  const batchSize = sweep.batchSize ?? DEFAULT_BATCH_SIZE;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) throw new RangeError(`invalid batch size ${batchSize}`);
  const shouldStop = sweep.shouldStop ?? (() => false);
  const cutoff = sweep.olderThan.getTime();
  if (shouldStop()) return 0;
  let deleted = 0;
  let batch: string[] = [];

  const sweepBatch = async (): Promise<void> => {
    const keys = batch;
    batch = [];
    const referenced = await sweep.referenced(keys);
    for (const key of keys) {
      if (shouldStop()) return;
      if (referenced.has(key)) continue;
      await store.delete(key);
      deleted++;
    }
  };

  for await (const blob of store.list(prefix)) {
    if (shouldStop()) return deleted;
    if (blob.lastModified.getTime() >= cutoff) continue;
    batch.push(blob.key);
    if (batch.length >= batchSize) await sweepBatch();
  }
  if (batch.length > 0 && !shouldStop()) await sweepBatch();
  return deleted;
}
