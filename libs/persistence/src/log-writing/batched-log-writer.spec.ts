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

describe('BatchedLogWriter: the writers of a process take turns', () => {
  let database: TestDatabase;

  // Two log tables whose inserts take `seconds` each, and record when each statement began and ended.
  async function slowTables(seconds: number): Promise<void> {
    await database.dataSource.query(`
      CREATE TABLE "public"."statements" ("log" text, "started" timestamptz, "ended" timestamptz);
      CREATE FUNCTION "public"."statement_began"() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          INSERT INTO "public"."statements" ("log", "started") VALUES (TG_TABLE_NAME, clock_timestamp());
          PERFORM pg_sleep(${seconds});
          RETURN NULL;
        END $$;
      CREATE FUNCTION "public"."statement_ended"() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          UPDATE "public"."statements" SET "ended" = clock_timestamp() WHERE "log" = TG_TABLE_NAME AND "ended" IS NULL;
          RETURN NULL;
        END $$;`);
    for (const table of ['first_log', 'second_log']) {
      await database.dataSource.query(`
        CREATE TABLE "public"."${table}" ("id" text PRIMARY KEY, "note" text);
        CREATE TRIGGER "began" BEFORE INSERT ON "public"."${table}" FOR EACH STATEMENT EXECUTE FUNCTION "public"."statement_began"();
        CREATE TRIGGER "ended" AFTER INSERT ON "public"."${table}" FOR EACH STATEMENT EXECUTE FUNCTION "public"."statement_ended"();`);
    }
  }

  const statements = async () =>
    (await database.dataSource.query(
      'SELECT "log", extract(epoch FROM "started") * 1000 AS "started", extract(epoch FROM "ended") * 1000 AS "ended" FROM "public"."statements" ORDER BY "started"',
    )) as { log: string; started: string; ended: string }[];

  beforeEach(async () => {
    database = await createTestDatabase({ migrated: false });
  });
  afterEach(async () => {
    await database.drop();
  });

  it('inserts one writer’s rows after the other’s when their ticks fall together', async () => {
    await slowTables(0.2);
    const options = { flushMs: 60_000, maxBufferedRows: 100 };
    const first = new BatchedLogWriter(
      database.dataSource,
      { name: '"public"."first_log"', columns: ['id', 'note'] },
      options,
    );
    const second = new BatchedLogWriter(
      database.dataSource,
      { name: '"public"."second_log"', columns: ['id', 'note'] },
      options,
    );
    first.append({ id: 'a', note: 'first' });
    second.append({ id: 'b', note: 'second' });
    await Promise.all([first.flush(), second.flush()]);
    const [one, two] = await statements();
    expect([one?.log, two?.log]).toEqual(['first_log', 'second_log']);
    expect(Number(two?.started)).toBeGreaterThanOrEqual(Number(one?.ended));
    await Promise.all([first.close(), second.close()]);
  });

  it('waits for another writer no longer than its flush interval', async () => {
    await slowTables(1.5);
    const slow = new BatchedLogWriter(
      database.dataSource,
      { name: '"public"."first_log"', columns: ['id', 'note'] },
      {
        flushMs: 60_000,
        maxBufferedRows: 100,
      },
    );
    const quick = new BatchedLogWriter(
      database.dataSource,
      { name: '"public"."second_log"', columns: ['id', 'note'] },
      {
        flushMs: 200,
        maxBufferedRows: 100,
      },
    );
    slow.append({ id: 'a', note: 'slow' });
    quick.append({ id: 'b', note: 'quick' });
    await Promise.all([slow.flush(), quick.flush()]);
    const [one, two] = await statements();
    expect([one?.log, two?.log]).toEqual(['first_log', 'second_log']);
    // The quick writer went while the slow one's statement still ran.
    expect(Number(two?.started)).toBeLessThan(Number(one?.ended));
    await Promise.all([slow.close(), quick.close()]);
  });
});
