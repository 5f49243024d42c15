import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../embedded/embedded-postgres';
import { revertLastMigration, runMigrations } from '../migrator/migrator';
import { type TestDatabase, createTestDatabase } from '../testing';

const SEARCH_MIGRATION = 'AddMessageSearch1795400000000';
const SCRIPT = path.resolve(__dirname, '../../../../docs/upgrade-message-search.sql');
const INDEXES = ['messages_owner_newest_idx', 'messages_search_idx', 'messages_text_trgm_idx'];

/** The script's statements as psql sends them: each ends with `;` at the end of a line, `$$` bodies whole. */
function scriptStatements(): string[] {
  const statements: string[] = [];
  let lines: string[] = [];
  let inBody = false;
  for (const line of readFileSync(SCRIPT, 'utf8').split('\n')) {
    if (!inBody && (line.trim() === '' || line.trimStart().startsWith('--'))) continue;
    lines.push(line);
    if (line.split('$$').length % 2 === 0) inBody = !inBody;
    if (!inBody && line.trimEnd().endsWith(';')) {
      statements.push(lines.join('\n'));
      lines = [];
    }
  }
  expect(lines).toEqual([]);
  return statements;
}

/** A database at the migration before message search (the release being upgraded), with messages in it. */
async function revertToBeforeSearch(url: string): Promise<void> {
  for (let name = await revertLastMigration(url); name !== SEARCH_MIGRATION; name = await revertLastMigration(url)) {
    if (!name) throw new Error(`${SEARCH_MIGRATION} was not applied`);
  }
}

async function writeMessages(client: Client, texts: { text: string; processing?: boolean }[]): Promise<string[]> {
  const conversationId = randomUUID();
  await client.query(
    `INSERT INTO conversations.conversations (id, user_id, tenant_id, title, created_at, updated_at)
     VALUES ($1, 'owner-1', 'tenant-1', 'upgrade', now(), now())`,
    [conversationId],
  );
  const ids: string[] = [];
  for (const { text, processing } of texts) {
    const id = randomUUID();
    await client.query(
      `INSERT INTO conversations.messages (id, conversation_id, user_id, tenant_id, sender, text, processing, created_at, updated_at)
       VALUES ($1, $2, 'owner-1', 'tenant-1', 'User', $3, $4, now(), now())`,
      [id, conversationId, text, processing ?? false],
    );
    ids.push(id);
  }
  return ids;
}

/** Each message's vector as text (null when it has none). */
async function vectors(client: Client, ids: string[]): Promise<(string | null)[]> {
  const { rows } = await client.query<{ id: string; vector: string | null }>(
    `SELECT id, search_vector::text AS vector FROM conversations.messages WHERE id = ANY($1::uuid[])`,
    [ids],
  );
  return ids.map((id) => rows.find((row) => row.id === id)?.vector ?? null);
}

async function validIndexes(client: Client): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indexrelid
      WHERE i.indrelid = 'conversations.messages'::regclass AND i.indisvalid AND c.relname = ANY($1) ORDER BY 1`,
    [INDEXES],
  );
  return rows.map((row) => row.name);
}

async function searchTriggers(client: Client): Promise<number> {
  const { rows } = await client.query<{ count: string }>(
    `SELECT count(*) FROM pg_trigger WHERE tgrelid = 'conversations.messages'::regclass AND tgname = 'messages_search_vector'`,
  );
  return Number(rows[0]?.count);
}

/** Resolves with `work`'s result, or rejects once `ms` have passed (a migration waiting for a lock). */
function within<T>(ms: number, work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * docs/upgrade-message-search.sql, which an operator runs before deploying message search on a large
 * table, then the migration: it finds the work done and only catches up.
 */
// The later migrations that index conversation tables, built first as docs/chat.md says for a large database.
const LATER_CONVERSATION_INDEXES = [
  'CREATE INDEX CONCURRENTLY IF NOT EXISTS conversations_updated_idx ON conversations.conversations (updated_at, id)',
  `CREATE INDEX CONCURRENTLY IF NOT EXISTS conversations_account_updated_idx ON conversations.conversations
     (split_part(user_id, '/', 1), updated_at, id) WHERE strpos(user_id, '/') > 0`,
  `CREATE INDEX CONCURRENTLY IF NOT EXISTS archived_conversations_account_updated_idx
     ON conversations.archived_conversations (split_part(user_id, '/', 1), updated_at, id) WHERE strpos(user_id, '/') > 0`,
  `CREATE INDEX CONCURRENTLY IF NOT EXISTS files_account_created_idx ON conversations.files
     (split_part(user_id, '/', 1), created_at, id) WHERE state = 'stored' AND strpos(user_id, '/') > 0`,
];

describe('the message search pre-upgrade script, then migration AddMessageSearch1795400000000', () => {
  describe('on PostgreSQL', () => {
    let database: TestDatabase;
    let client: Client;

    beforeAll(async () => {
      database = await createTestDatabase();
      await revertToBeforeSearch(database.url);
      client = new Client({ connectionString: database.url });
      await client.connect();
    });
    afterAll(async () => {
      await client?.end();
      await database?.drop();
    });

    it('adds the columns, the trigger and the three indexes, and backfills every ended turn, outside one transaction', async () => {
      const [ended, other, running] = await writeMessages(client, [
        { text: 'The quarterly report is ready' },
        { text: 'Die Häuser sind teurer geworden' },
        { text: 'still writing', processing: true },
      ]);
      // More than one batch of 10,000.
      await client.query(
        `INSERT INTO conversations.messages (id, conversation_id, user_id, sender, text, created_at, updated_at)
         SELECT gen_random_uuid(), conversation_id, user_id, 'AI', 'answer ' || n, now(), now()
           FROM conversations.messages, generate_series(1, 10001) AS n WHERE id = $1`,
        [ended],
      );
      // Each statement on its own, in autocommit (a concurrent index build refuses a transaction).
      for (const statement of scriptStatements()) await client.query(statement);
      expect(await vectors(client, [ended!, other!, running!])).toEqual([
        "'is':4 'quarterly':2 'ready':5 'report':3 'the':1",
        "'die':1 'geworden':5 'häuser':2 'sind':3 'teurer':4",
        null,
      ]);
      const { rows } = await client.query(
        `SELECT count(*)::int AS "missing" FROM conversations.messages WHERE search_vector IS NULL AND NOT processing`,
      );
      expect(rows).toEqual([{ missing: 0 }]);
      expect(await validIndexes(client)).toEqual(INDEXES);
      // A message written after the script: the trigger gives it a vector in its language.
      const [written] = await writeMessages(client, [{ text: 'running late' }]);
      await client.query(`UPDATE conversations.messages SET search_config = 'english' WHERE id = $1`, [written]);
      expect(await vectors(client, [written!])).toEqual(["'late':2 'run':1"]);
    });

    it('may be run again, changing nothing', async () => {
      for (const statement of scriptStatements()) await client.query(statement);
      expect(await validIndexes(client)).toEqual(INDEXES);
      expect(await searchTriggers(client)).toBe(1);
    });

    it('leaves the migration only the rows without a vector, without waiting for a writer in a transaction', async () => {
      const [missed] = await writeMessages(client, [{ text: 'missed by the backfill' }]);
      // Cleared without the trigger firing (it fires on text, configuration and processing only).
      await client.query(`UPDATE conversations.messages SET search_vector = NULL WHERE id = $1`, [missed]);
      // The migrations after it come along in the same run; those indexing conversation tables are skipped
      // when an operator built their indexes concurrently first, as docs/chat.md says for a large table.
      for (const statement of LATER_CONVERSATION_INDEXES) await client.query(statement);
      const writer = new Client({ connectionString: database.url });
      await writer.connect();
      try {
        await writer.query('BEGIN');
        const [pending] = await writeMessages(writer, [{ text: 'written while migrating' }]);
        // ADD COLUMN, CREATE TRIGGER or CREATE INDEX would each wait for the writer's lock to end.
        const applied = await within(20_000, runMigrations(database.url), 'the migration');
        expect(applied[0]).toBe(SEARCH_MIGRATION);
        await writer.query('COMMIT');
        expect(await vectors(client, [missed!, pending!])).toEqual([
          "'backfill':4 'by':2 'missed':1 'the':3",
          "'migrating':3 'while':2 'written':1",
        ]);
      } finally {
        await writer.end();
      }
      expect(await validIndexes(client)).toEqual(INDEXES);
      expect(await searchTriggers(client)).toBe(1);
    });
  });

  describe('on the embedded PostgreSQL (PGlite)', () => {
    let dataDir: string;
    let embedded: EmbeddedPostgres;
    let client: Client;

    beforeAll(async () => {
      dataDir = await mkdtemp(path.join(tmpdir(), 'fed-search-upgrade-'));
      embedded = await startEmbeddedPostgres({ dataDir });
      await runMigrations(embedded.url);
      await revertToBeforeSearch(embedded.url);
      client = new Client({ connectionString: embedded.url });
      await client.connect();
    }, 120_000);
    afterAll(async () => {
      await client?.end();
      await embedded?.stop();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    it('runs the script, then the migration, which skips what the script did', async () => {
      const [ended] = await writeMessages(client, [{ text: 'The quarterly report is ready' }]);
      for (const statement of scriptStatements()) await client.query(statement);
      expect(await vectors(client, [ended!])).toEqual(["'is':4 'quarterly':2 'ready':5 'report':3 'the':1"]);
      const [missed] = await writeMessages(client, [{ text: 'missed by the backfill' }]);
      await client.query(`UPDATE conversations.messages SET search_vector = NULL WHERE id = $1`, [missed]);
      expect((await runMigrations(embedded.url))[0]).toBe(SEARCH_MIGRATION);
      expect(await vectors(client, [missed!])).toEqual(["'backfill':4 'by':2 'missed':1 'the':3"]);
      expect(await validIndexes(client)).toEqual(INDEXES);
      expect(await searchTriggers(client)).toBe(1);
    });
  });
});
