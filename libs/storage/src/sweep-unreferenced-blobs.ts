import { assertBlobPrefix } from './blob-keys';
import { type BlobStore } from './ports/blob-store';

export interface UnreferencedBlobSweep {
  /** A newer blob may be waiting for its row. */
  olderThan: Date;
  /** Which of `keys` a row still names; the rest are deleted. */
  referenced(keys: readonly string[]): Promise<ReadonlySet<string>>;
  /** True ends the sweep early. */
  shouldStop?: () => boolean;
  /** Default 500. */
  batchSize?: number;
}

const DEFAULT_BATCH_SIZE = 500;

/** Blobs written by a process that died before its row, or left by a delete that failed after the row went. */
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
