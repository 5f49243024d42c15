import { createDataSource, dataSourceOptions } from '../data-source/data-source.factory';
import { type TestDatabase, createTestDatabase } from '../testing';
import { BatchedLogWriter, type DropReason } from './batched-log-writer';

const TABLE = { name: '"public"."writer_rows"', columns: ['id', 'note'] };

describe('BatchedLogWriter: flush and close', () => {
  let database: TestDatabase;

  beforeEach(async () => {
    database = await createTestDatabase({ migrated: false });
    await database.dataSource.query('CREATE TABLE "public"."writer_rows" ("id" text PRIMARY KEY, "note" text)');
  });
  afterEach(async () => {
    await database.drop();
  });

  it('writes what is buffered before it returns', async () => {
    const writer = new BatchedLogWriter(database.dataSource, TABLE, { flushMs: 60_000, maxBufferedRows: 100 });
    writer.append({ id: 'a', note: 'first' });
    writer.append({ id: 'b', note: 'second' });
    await writer.close();
    const rows = (await database.dataSource.query('SELECT "id" FROM "public"."writer_rows" ORDER BY "id"')) as {
      id: string;
    }[];
    expect(rows.map((row) => row.id)).toEqual(['a', 'b']);
  });

  it('flush() during a write under way also writes the rows that arrived after it began', async () => {
    const writer = new BatchedLogWriter(database.dataSource, TABLE, { flushMs: 60_000, maxBufferedRows: 100 });
    writer.append({ id: 'a', note: 'before' });
    const first = writer.flush();
    writer.append({ id: 'b', note: 'during' });
    await writer.flush();
    await first;
    const rows = (await database.dataSource.query('SELECT "id" FROM "public"."writer_rows" ORDER BY "id"')) as {
      id: string;
    }[];
    expect(rows.map((row) => row.id)).toEqual(['a', 'b']);
    await writer.close();
  });

  it('gives up at once, counting the rows, when the database is gone (not after its deadline)', async () => {
    // A connection of its own, so that dropping the test database (which ends every connection) reaches it.
    const own = await createDataSource(
      dataSourceOptions({ url: database.url, poolSize: 1, applicationName: 'fed-test' }),
    );
    const dropped: [number, DropReason][] = [];
    const writer = new BatchedLogWriter(own, TABLE, {
      flushMs: 60_000,
      maxBufferedRows: 100,
      onDropped: (rows, reason) => dropped.push([rows, reason]),
    });
    try {
      await database.drop();
      writer.append({ id: 'lost', note: 'after the database went' });
      const started = Date.now();
      await writer.close(30_000);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(dropped).toEqual([[1, 'database_gone']]);
      expect(writer.droppedRows).toBe(1);
    } finally {
      await own.destroy().catch(() => undefined);
    }
  });
});
