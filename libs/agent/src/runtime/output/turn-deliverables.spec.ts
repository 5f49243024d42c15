import { type ClaimedTurn, DEFAULT_TURN_OPTIONS, TurnLedger } from '@fed/conversations';
import { createLogger } from '@fed/observability';
import { useTestDatabase } from '@fed/persistence/testing';
import { type BlobInfo, type BlobStore, BlobNotFoundError, type StoredBlob } from '@fed/storage';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { DeliverableRefusedError, DeliverableStore, MAX_DELIVERABLE_BYTES } from './turn-deliverables';

/** The port in memory: enough to see which blobs exist. */
class MemoryBlobs implements BlobStore {
  readonly blobs = new Map<string, Buffer>();

  async put(key: string, body: Readable): Promise<StoredBlob> {
    const parts: Buffer[] = [];
    for await (const part of body) parts.push(Buffer.from(part as Buffer));
    const bytes = Buffer.concat(parts);
    this.blobs.set(key, bytes);
    return { key, bytes: bytes.length };
  }
  async get(key: string): Promise<Readable> {
    const bytes = this.blobs.get(key);
    if (!bytes) throw new BlobNotFoundError(key);
    return Readable.from([bytes]);
  }
  async stat(key: string): Promise<BlobInfo | null> {
    const bytes = this.blobs.get(key);
    return bytes ? { key, bytes: bytes.length, lastModified: new Date() } : null;
  }
  async delete(key: string): Promise<void> {
    this.blobs.delete(key);
  }
  async *list(prefix: string): AsyncIterable<BlobInfo> {
    for (const [key, bytes] of this.blobs) {
      if (key.startsWith(prefix)) yield { key, bytes: bytes.length, lastModified: new Date() };
    }
  }
}

describe('a turn’s deliverable store', () => {
  const database = useTestDatabase();
  let ledger: TurnLedger;
  let blobs: MemoryBlobs;
  let store: DeliverableStore;
  const signal = new AbortController().signal;

  beforeAll(() => {
    ledger = new TurnLedger(database.dataSource);
  });

  beforeEach(() => {
    blobs = new MemoryBlobs();
    store = new DeliverableStore(ledger, blobs, createLogger({ service: 'test', level: 'silent' }));
  });

  async function processingTurn(): Promise<ClaimedTurn> {
    const conversationId = randomUUID();
    const runId = randomUUID();
    await database.dataSource.query(
      `INSERT INTO "conversations"."conversations" ("id", "user_id", "tenant_id", "title", "created_at", "updated_at")
       VALUES ($1, 'user-1', 'tenant-1', 't', now(), now())`,
      [conversationId],
    );
    await database.dataSource.query(
      `INSERT INTO "conversations"."messages"
         ("id", "conversation_id", "user_id", "tenant_id", "sender", "text", "processing", "created_at", "updated_at")
       VALUES ($1, $2, 'user-1', 'tenant-1', 'AI', '', true, now(), now())`,
      [runId, conversationId],
    );
    return {
      runId,
      conversationId,
      userId: 'user-1',
      tenantId: 'tenant-1',
      options: DEFAULT_TURN_OPTIONS,
      text: '',
      userMessage: { messageId: randomUUID(), text: '', files: [] },
      history: [],
      pendingInteraction: null,
      cancelRequested: false,
    } as ClaimedTurn;
  }

  async function rows(runId: string) {
    return (await database.dataSource.query(
      `SELECT "filepath", "is_primary", "blob_key", "user_id", "tenant_id", "size"::int AS "size"
         FROM "conversations"."deliverables" WHERE "message_id" = $1 ORDER BY "created_at"`,
      [runId],
    )) as {
      filepath: string;
      is_primary: boolean;
      blob_key: string;
      user_id: string;
      tenant_id: string;
      size: number;
    }[];
  }

  it('stores the bytes under deliverables/<conversationId>/<messageId>/ and a row owned like the message', async () => {
    const turn = await processingTurn();
    const sink = await store.open(turn, signal);
    const saved = await sink.save({ filepath: 'notes/summary.md', content: 'Grüße ✓' });
    expect(saved).toEqual({
      filename: 'summary.md',
      filepath: 'notes/summary.md',
      source: 'agent',
      isPrimary: true,
      createdAt: expect.any(String),
      mimeType: 'text/markdown',
      size: Buffer.byteLength('Grüße ✓'),
    });
    const [row] = await rows(turn.runId);
    expect(row).toMatchObject({ user_id: 'user-1', tenant_id: 'tenant-1', is_primary: true });
    expect(blobs.blobs.get(row?.blob_key as string)?.toString('utf8')).toBe('Grüße ✓');
    expect(row?.blob_key.startsWith(`deliverables/${turn.conversationId}/${turn.runId}/`)).toBe(true);
  });

  it('keeps exactly one primary: the last file saved with primary, else the first file', async () => {
    const turn = await processingTurn();
    const sink = await store.open(turn, signal);
    await sink.save({ filepath: 'a.txt', content: 'a' });
    await sink.save({ filepath: 'b.txt', content: 'b' });
    expect((await ledger.deliverables(turn.runId)).map((file) => [file.filepath, file.isPrimary])).toEqual([
      ['a.txt', true],
      ['b.txt', false],
    ]);
    await sink.save({ filepath: 'c.txt', content: 'c', primary: true });
    await sink.save({ filepath: 'd.txt', content: 'd', primary: true });
    await sink.save({ filepath: 'e.txt', content: 'e' });
    const primaries = (await ledger.deliverables(turn.runId)).filter((file) => file.isPrimary);
    expect(primaries.map((file) => file.filepath)).toEqual(['d.txt']);
  });

  it('replaces the file when the same path is written again: one row, the new bytes, the old blob gone', async () => {
    const turn = await processingTurn();
    const sink = await store.open(turn, signal);
    await sink.save({ filepath: 'report.csv', content: 'old' });
    const [first] = await rows(turn.runId);
    await sink.save({ filepath: 'report.csv', content: 'new, longer' });
    const after = await rows(turn.runId);
    expect(after).toHaveLength(1);
    expect(after[0]?.size).toBe(11);
    expect(blobs.blobs.has(first?.blob_key as string)).toBe(false);
    expect(blobs.blobs.get(after[0]?.blob_key as string)?.toString()).toBe('new, longer');
    expect(after[0]?.blob_key).toMatch(new RegExp(`^deliverables/${turn.conversationId}/${turn.runId}/[0-9a-f-]{36}$`));
  });

  it('keeps exactly one primary when files are saved at the same moment', async () => {
    for (const primary of [true, false]) {
      const turn = await processingTurn();
      const sink = await store.open(turn, signal);
      await Promise.all(
        Array.from({ length: 8 }, (_, index) => sink.save({ filepath: `file-${index}.txt`, content: 'x', primary })),
      );
      const files = await ledger.deliverables(turn.runId);
      expect(files).toHaveLength(8);
      expect([primary, files.filter((file) => file.isPrimary).length]).toEqual([primary, 1]);
    }
  });

  it('leaves one row and one blob per path when a path is rewritten at the same moment, the primary kept', async () => {
    const turn = await processingTurn();
    const sink = await store.open(turn, signal);
    await sink.save({ filepath: 'report.md', content: 'first' });
    await sink.save({ filepath: 'other.md', content: 'other' });
    await Promise.all(
      Array.from({ length: 6 }, (_, index) => sink.save({ filepath: 'report.md', content: `rewrite ${index}` })),
    );
    const after = await rows(turn.runId);
    expect(after.map((row) => [row.filepath, row.is_primary]).sort()).toEqual([
      ['other.md', false],
      ['report.md', true],
    ]);
    expect([...blobs.blobs.keys()].sort()).toEqual(after.map((row) => row.blob_key).sort());
  });

  it('omits mimeType when it cannot be determined and size when it is 0', async () => {
    const turn = await processingTurn();
    const sink = await store.open(turn, signal);
    const saved = await sink.save({ filepath: 'Makefile', content: '' });
    expect(saved).not.toHaveProperty('mimeType');
    expect(saved).not.toHaveProperty('size');
    expect((await sink.save({ filepath: 'data.bin', content: 'x', mimeType: 'Application/X-Thing' })).mimeType).toBe(
      'application/x-thing',
    );
  });

  it('refuses a path that is not relative, contains "..", or content over 5 MB, storing nothing', async () => {
    const turn = await processingTurn();
    const sink = await store.open(turn, signal);
    for (const filepath of ['/etc/passwd', 'a/../b', 'a..b', '.hidden', 'a//b', 'x'.repeat(256)]) {
      await expect(sink.save({ filepath, content: 'x' })).rejects.toThrow(DeliverableRefusedError);
    }
    await expect(sink.save({ filepath: 'big.txt', content: 'x'.repeat(MAX_DELIVERABLE_BYTES + 1) })).rejects.toThrow(
      DeliverableRefusedError,
    );
    await expect(sink.save({ filepath: 'x.txt', content: 'x', mimeType: 'not a type' })).rejects.toThrow(
      DeliverableRefusedError,
    );
    expect(await rows(turn.runId)).toEqual([]);
    expect(blobs.blobs.size).toBe(0);
  });

  it('stores nothing for a turn that is no longer processing', async () => {
    const turn = await processingTurn();
    const sink = await store.open(turn, signal);
    await database.dataSource.query(`UPDATE "conversations"."messages" SET "processing" = false WHERE "id" = $1`, [
      turn.runId,
    ]);
    await expect(sink.save({ filepath: 'late.txt', content: 'x' })).rejects.toThrow(/no longer processing/);
    expect(await rows(turn.runId)).toEqual([]);
    expect(blobs.blobs.size).toBe(0);
  });

  it('starts a new attempt of the turn without what an earlier attempt wrote (no duplicates on retry)', async () => {
    const turn = await processingTurn();
    const first = await store.open(turn, signal);
    await first.save({ filepath: 'out.txt', content: 'attempt 1' });
    await first.save({ filepath: 'only-first.txt', content: 'attempt 1' });
    const second = await store.open(turn, signal);
    await second.save({ filepath: 'out.txt', content: 'attempt 2' });
    expect((await rows(turn.runId)).map((row) => row.filepath)).toEqual(['out.txt']);
    expect([...blobs.blobs.values()].map(String)).toEqual(['attempt 2']);
  });
});
