import { TEST_TENANT_ID } from '@fed/auth/testing';
import { searchConfigOf } from '@fed/conversations';
import { type EmbeddedPostgres, runMigrations, startEmbeddedPostgres } from '@fed/persistence';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { type RunningChatService, type TestUser, bootChatService } from './testing/boot-chat-service';

/** The tenant of the test issuer's tokens. */
const TENANT = TEST_TENANT_ID;

interface SearchResult {
  conversationId: string;
  conversationTitle: string;
  messageId: string;
  sender: 'User' | 'AI';
  snippet: string;
  createdAt: string;
}
interface SearchPage {
  results: SearchResult[];
  hasMore: boolean;
  cursor?: string;
}

type Query = (sql: string, values: unknown[]) => Promise<unknown>;

/** Fixtures written as the writers write them: the configuration of the text's language, the turn ended. */
function fixtures(query: Query) {
  return {
    async conversation(user: TestUser, options: { title?: string; archived?: boolean } = {}): Promise<string> {
      const id = randomUUID();
      const table = options.archived ? 'archived_conversations' : 'conversations';
      await query(
        `INSERT INTO conversations.${table} (id, user_id, tenant_id, title, created_at, updated_at${options.archived ? ', archived_at' : ''})
         VALUES ($1, $2, $3, $4, now(), now()${options.archived ? ', now()' : ''})`,
        [id, user.userId, TENANT, options.title ?? 'a conversation'],
      );
      return id;
    },
    async message(
      user: TestUser,
      conversationId: string,
      text: string,
      options: { sender?: 'User' | 'AI'; createdAt?: Date; processing?: boolean } = {},
    ): Promise<string> {
      const id = randomUUID();
      await query(
        `INSERT INTO conversations.messages
           (id, conversation_id, user_id, tenant_id, sender, text, processing, search_config, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)`,
        [
          id,
          conversationId,
          user.userId,
          TENANT,
          options.sender ?? 'User',
          text,
          options.processing ?? false,
          searchConfigOf(text),
          options.createdAt ?? new Date(),
        ],
      );
      return id;
    },
  };
}

function searcher(stack: () => RunningChatService) {
  return async (user: TestUser | string, query: string): Promise<{ status: number; body: Record<string, unknown> }> => {
    const token = typeof user === 'string' ? user : await user.token();
    const res = await fetch(`${stack().api}/v1/search${query}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
}

/** `GET /v1/search` of document 2 over HTTP, on PostgreSQL. */
describe('chat-service: message search', () => {
  let database: TestDatabase;
  let stack: RunningChatService;
  const search = searcher(() => stack);
  const { conversation, message } = fixtures((sql, values) => database.dataSource.query(sql, values));

  beforeAll(async () => {
    database = await createTestDatabase();
    stack = await bootChatService({ databaseUrl: database.url });
  });
  afterAll(async () => {
    await stack?.close();
    await database?.drop();
  });

  async function results(user: TestUser, query: string): Promise<SearchResult[]> {
    const { status, body } = await search(user, query);
    expect(status).toBe(200);
    return (body as unknown as SearchPage).results;
  }

  async function expectError(user: TestUser | string, query: string, status: number, code: string) {
    const { status: actual, body } = await search(user, query);
    expect({ status: actual, code: (body.error as { code?: string } | undefined)?.code }).toEqual({ status, code });
    return body.error as { message: string };
  }

  describe('matching', () => {
    let user: TestUser;
    let conversationId: string;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      user = stack.user();
      conversationId = await conversation(user, { title: 'Weekly planning' });
      const at = (minutes: number) => new Date(Date.now() - minutes * 60_000);
      ids.english = await message(
        user,
        conversationId,
        'The integration tests are running on the new build server, and most of them pass.',
        { sender: 'AI', createdAt: at(10) },
      );
      ids.german = await message(
        user,
        conversationId,
        'Die Häuser in der Innenstadt sind im letzten Jahr deutlich teurer geworden.',
        { createdAt: at(9) },
      );
      ids.japanese = await message(user, conversationId, '東京の天気を教えてください。明日は雨が降りますか？', {
        createdAt: at(8),
      });
      ids.phrase = await message(user, conversationId, 'Please summarize the quarterly report for the board.', {
        createdAt: at(7),
      });
      ids.apart = await message(user, conversationId, 'The report was late again this quarterly cycle, sadly.', {
        createdAt: at(6),
      });
      ids.script = await message(
        user,
        conversationId,
        `<script>alert('stolen')</script> keeps appearing in the logs of the proxy`,
        { createdAt: at(5) },
      );
    });

    const found = async (q: string) =>
      (await results(user, `?q=${encodeURIComponent(q)}`)).map((result) => result.messageId);

    it('finds an English message by another form of its word (runs: running), and marks the word as written', async () => {
      const [result] = await results(user, '?q=runs');
      expect(result).toEqual({
        conversationId,
        conversationTitle: 'Weekly planning',
        messageId: ids.english,
        sender: 'AI',
        snippet: 'The integration tests are <mark>running</mark> on the new build server, and most of them pass.',
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      });
    });

    it('finds a German message by the singular of a plural with an umlaut (Haus: Häuser)', async () => {
      const [result] = await results(user, '?q=Haus');
      expect(result?.messageId).toBe(ids.german);
      expect(result?.sender).toBe('User');
      expect(result?.snippet).toContain('Die <mark>Häuser</mark> in der Innenstadt');
    });

    it('finds Japanese text by a substring of it, two characters or more', async () => {
      expect(await found('天気')).toEqual([ids.japanese]);
      expect(await found('雨が降り')).toEqual([ids.japanese]);
      expect((await results(user, `?q=${encodeURIComponent('天気')}`))[0]?.snippet).toBe(
        '東京の<mark>天気</mark>を教えてください。明日は雨が降りますか？',
      );
    });

    it('finds a fragment of a word, in any letter case', async () => {
      expect(await found('NTEGRAT')).toEqual([ids.english]);
      expect((await results(user, '?q=ntegrat'))[0]?.snippet).toContain('i<mark>ntegrat</mark>ion');
    });

    it('finds a quoted phrase only where its words follow each other', async () => {
      expect(await found('"quarterly report"')).toEqual([ids.phrase]);
      expect((await found('quarterly report')).sort()).toEqual([ids.phrase, ids.apart].sort());
    });

    it('takes %, _ and \\ in q literally, and finds punctuation, which has no word to stem', async () => {
      const percent = await message(user, conversationId, 'Budget 100% done');
      const underscore = await message(user, conversationId, 'file_name review');
      await message(user, conversationId, 'filename review, 1000 items');
      const marks = await message(user, conversationId, 'Really?!? yes');
      expect(await found('100%')).toEqual([percent]);
      expect(await found('e_n')).toEqual([underscore]);
      expect(await found('\\')).toEqual([]);
      expect(await found('?!?')).toEqual([marks]);
    });

    it('escapes the text of the snippet, markup included', async () => {
      const [result] = await results(user, '?q=stolen');
      expect(result?.messageId).toBe(ids.script);
      expect(result?.snippet).toBe(
        '&lt;script&gt;alert(&#39;<mark>stolen</mark>&#39;)&lt;/script&gt; keeps appearing in the logs of the proxy',
      );
    });

    it('cuts a long message around the match, with … on both sides', async () => {
      const long = `${'Opening words fill this part of the answer. '.repeat(30)}The needle is here. ${'More text follows the match here. '.repeat(30)}`;
      const id = await message(user, conversationId, long, { sender: 'AI' });
      const [result] = await results(user, '?q=needle');
      expect(result?.messageId).toBe(id);
      expect(result?.snippet).toMatch(/^….*The <mark>needle<\/mark> is here\..*…$/);
      expect(result?.snippet.length).toBeLessThan(220);
    });

    it('does not find the text of a turn still in progress (searchable once the turn has ended)', async () => {
      await message(user, conversationId, 'unfinished thoughts about zeppelins', { sender: 'AI', processing: true });
      expect(await found('zeppelins')).toEqual([]);
    });

    it("never finds another user's messages, even in a conversation of the caller's id", async () => {
      const other = stack.user();
      const theirs = await conversation(other);
      await message(other, theirs, 'The integration tests are running on my laptop too.');
      // A row claiming the caller's conversation but owned by someone else is not the caller's either.
      await message(other, conversationId, 'The integration tests are running elsewhere.');
      expect(await found('integration')).toEqual([ids.english]);
      expect((await results(other, '?q=integration')).map((result) => result.conversationId).sort()).toEqual([theirs]);
    });
  });

  describe('modes and pages', () => {
    it('finds the messages of archived conversations with mode=archive only', async () => {
      const user = stack.user();
      const active = await conversation(user);
      const archived = await conversation(user, { archived: true, title: 'old' });
      const activeMessage = await message(user, active, 'kiwi smoothie recipe');
      const archivedMessage = await message(user, archived, 'kiwi orchard visit');
      expect((await results(user, '?q=kiwi')).map((result) => result.messageId)).toEqual([activeMessage]);
      expect((await results(user, '?q=kiwi&mode=active')).map((result) => result.messageId)).toEqual([activeMessage]);
      const archive = await results(user, '?q=kiwi&mode=archive');
      expect(archive.map((result) => [result.messageId, result.conversationTitle])).toEqual([[archivedMessage, 'old']]);
    });

    it('pages newest first through the cursor, each message once, messages of one timestamp included', async () => {
      const user = stack.user();
      const id = await conversation(user);
      const base = Date.now() - 3_600_000;
      const written: { id: string; at: number }[] = [];
      for (let i = 0; i < 7; i++) {
        // Two pairs share a timestamp (a user message and its answer do): the insertion order breaks the tie.
        const at = base + [0, 1, 1, 2, 3, 3, 4][i]! * 1000;
        written.push({ id: await message(user, id, `mango note ${i}`, { createdAt: new Date(at) }), at });
      }
      const expected = written
        .map((item, order) => ({ ...item, order }))
        .sort((a, b) => b.at - a.at || b.order - a.order)
        .map((item) => item.id);
      const listed: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const { status, body } = await search(user, `?q=mango&limit=3${cursor ? `&cursor=${cursor}` : ''}`);
        expect(status).toBe(200);
        const page = body as unknown as SearchPage;
        listed.push(...page.results.map((result) => result.messageId));
        expect(page.hasMore).toBe(page.cursor !== undefined);
        cursor = page.cursor;
        pages++;
      } while (cursor && pages < 10);
      expect(pages).toBe(3);
      expect(listed).toEqual(expected);
    });

    it('defaults to 50 results a page, without a cursor on the last page', async () => {
      const user = stack.user();
      const id = await conversation(user);
      for (let i = 0; i < 51; i++) await message(user, id, `papaya ${i}`);
      const first = (await search(user, '?q=papaya')).body as unknown as SearchPage;
      expect(first.results).toHaveLength(50);
      expect(first.hasMore).toBe(true);
      const last = (await search(user, `?q=papaya&cursor=${first.cursor}`)).body as unknown as SearchPage;
      expect(last).toEqual({
        results: [expect.objectContaining({ snippet: '<mark>papaya</mark> 0' })],
        hasMore: false,
      });
    });
  });

  describe('bounds: what a search reads does not grow with what the owner has', () => {
    let user: TestUser;
    let conversationId: string;
    const base = Date.now() - 86_400_000;
    const at = (secondsAgo: number) => new Date(base - secondsAgo * 1000);
    const ids: Record<string, string> = {};
    const mangoes: string[] = [];

    /** `count` messages `note <n>`, one a second from `fromSecondsAgo` back, in one statement. */
    const notes = (count: number, fromSecondsAgo: number, owner = user, into = conversationId) =>
      database.dataSource.query(
        `INSERT INTO conversations.messages (id, conversation_id, user_id, tenant_id, sender, text, created_at, updated_at)
         SELECT gen_random_uuid(), $1, $2, $3, 'User', 'note ' || n, $4::timestamptz - n * interval '1 second',
                $4::timestamptz - n * interval '1 second'
           FROM generate_series(1, $5::int) AS n`,
        [into, owner.userId, TENANT, at(fromSecondsAgo), count],
      );

    beforeAll(async () => {
      user = stack.user();
      conversationId = await conversation(user);
      // Newest first: 55 mangoes, 20,000 notes with 5 more mangoes 3,000 rows down and a few messages
      // inside the newest 20,000, then messages older than the newest 20,000.
      for (let i = 0; i < 55; i++)
        mangoes.push(await message(user, conversationId, `mango ${i}`, { createdAt: at(i) }));
      await notes(20_000, 100);
      for (let i = 0; i < 5; i++)
        mangoes.push(await message(user, conversationId, `mango old ${i}`, { createdAt: at(3100.5 + i) }));
      ids.recentTable = await message(user, conversationId, 'the table is set', { createdAt: at(600.5) });
      ids.recentMarks = await message(user, conversationId, 'Really?! yes', { createdAt: at(700.5) });
      ids.oldWord = await message(user, conversationId, 'plan ab is the old one', { createdAt: at(30_000) });
      ids.oldInside = await message(user, conversationId, 'the old tablet', { createdAt: at(30_001) });
      ids.oldMarks = await message(user, conversationId, 'Seriously?! no', { createdAt: at(30_002) });
    });

    const all = async (q: string, limit: number, mode = 'active', owner = user): Promise<string[]> => {
      const listed: string[] = [];
      let cursor: string | undefined;
      do {
        const { status, body } = await search(
          owner,
          `?q=${encodeURIComponent(q)}&limit=${limit}&mode=${mode}${cursor ? `&cursor=${cursor}` : ''}`,
        );
        expect(status).toBe(200);
        const page = body as unknown as SearchPage;
        listed.push(...page.results.map((result) => result.messageId));
        cursor = page.cursor;
      } while (cursor && listed.length < 1000);
      return listed;
    };

    it('pages through dense matches read newest first, then the older ones through the indexes, each once in order', async () => {
      // The first page is among the newest rows; the second needs the five 3,000 rows down.
      expect(await all('mango', 50)).toEqual(mangoes);
      expect(await all('mango', 7)).toEqual(mangoes);
    });

    it('finds a fragment of one or two characters among the newest 20,000 messages only, whole words everywhere', async () => {
      expect(await all('ab', 50)).toEqual([ids.recentTable, ids.oldWord]);
      expect(await all('ab', 1)).toEqual([ids.recentTable, ids.oldWord]);
    });

    it('finds a query without a word (punctuation) among the newest 20,000 messages only', async () => {
      expect(await all('?!', 50)).toEqual([ids.recentMarks]);
    });

    it('finds what has a trigram anywhere, however old', async () => {
      expect(await all('tablet', 50)).toEqual([ids.oldInside]);
    });

    it('reads a small archive whole and walks the newest rows of an owner with a large one: the same pages', async () => {
      const owner = stack.user();
      const active = await conversation(owner);
      const archives = [
        await conversation(owner, { archived: true, title: 'old' }),
        await conversation(owner, { archived: true, title: 'older' }),
      ];
      // Archived and active matches interleaved in time, newest first.
      const archived: string[] = [];
      for (let i = 0; i < 24; i++) {
        await message(owner, active, `kumquat ${i}`, { createdAt: at(2 * i) });
        archived.push(await message(owner, archives[i % 2], `kumquat ${i}`, { createdAt: at(2 * i + 1) }));
      }
      expect(await all('kumquat', 5, 'archive', owner)).toEqual(archived);
      expect(await all('kumquat', 50, 'archive', owner)).toEqual(archived);
      // Past WALK_ROWS archived messages (older ones): the owner's newest rows are walked, then the indexes asked.
      await notes(2_001, 1_000, owner, archives[0]);
      expect(await all('kumquat', 5, 'archive', owner)).toEqual(archived);
      expect(await all('kumquat', 50, 'archive', owner)).toEqual(archived);
      expect(await all('kumquat', 50, 'active', owner)).toHaveLength(24);
    });
  });

  describe('refusals', () => {
    let user: TestUser;
    beforeAll(() => {
      user = stack.user();
    });

    it('refuses a missing, empty or blank q (400 invalid_parameter naming q)', async () => {
      for (const query of ['', '?q=', '?q=%20%20', '?mode=active', '?q=%09%0A']) {
        const error = await expectError(user, query, 400, 'invalid_parameter');
        expect(error.message).toMatch(/^q /);
      }
    });

    it('refuses a q over 200 characters once trimmed, and takes 200', async () => {
      const error = await expectError(user, `?q=${'a'.repeat(201)}`, 400, 'invalid_parameter');
      expect(error.message).toBe('q must be at most 200 characters');
      expect((await search(user, `?q=${'a'.repeat(200)}`)).status).toBe(200);
      expect((await search(user, `?q=%20${'a'.repeat(200)}%20`)).status).toBe(200);
    });

    it('refuses NUL and control characters in q', async () => {
      for (const character of ['%00', '%07', '%1B', '%7F']) {
        const error = await expectError(user, `?q=a${character}b`, 400, 'invalid_parameter');
        expect(error.message).toMatch(/^q must not contain NUL/);
      }
    });

    it('takes the bytes of a lone surrogate in q as replacement characters, never failing', async () => {
      // UTF-8 cannot carry a lone surrogate: its CESU-8 bytes decode to U+FFFD (the DTO test refuses a real one).
      expect(await search(user, '?q=a%ED%A0%80b')).toEqual({ status: 200, body: { results: [], hasMore: false } });
    });

    it('refuses a q that only excludes: exclusions alone match everything (400 invalid_parameter)', async () => {
      for (const q of ['-zzzz', '-"weekly report"', 'report or -draft']) {
        const error = await expectError(user, `?q=${encodeURIComponent(q)}`, 400, 'invalid_parameter');
        expect(error.message).toMatch(/^q must name a word or phrase to find.*exclusions alone match everything$/);
      }
      expect((await search(user, `?q=${encodeURIComponent('report -draft')}`)).status).toBe(200);
    });

    it('refuses q given twice', async () => {
      await expectError(user, '?q=a&q=b', 400, 'invalid_parameter');
    });

    it('refuses a mode other than active or archive', async () => {
      for (const mode of ['archived', 'ACTIVE', 'all']) {
        await expectError(user, `?q=a&mode=${mode}`, 400, 'invalid_parameter');
      }
    });

    it('refuses a limit outside 1-100 or not an integer, and order', async () => {
      for (const limit of ['0', '101', 'abc', '1.5', '-1', '']) {
        await expectError(user, `?q=a&limit=${limit}`, 400, 'invalid_parameter');
      }
      await expectError(user, '?q=a&order=asc', 400, 'invalid_parameter');
    });

    it('refuses a cursor not from a previous answer of the same search', async () => {
      const id = await conversation(user);
      for (let i = 0; i < 3; i++) await message(user, id, `lychee ${i}`);
      const cursor = ((await search(user, '?q=lychee&limit=1')).body as unknown as SearchPage).cursor;
      expect(typeof cursor).toBe('string');
      const forged = Buffer.from(JSON.stringify({ v: 1, l: 'search:active:x', o: 'desc', a: ['x', '1'] }));
      for (const query of [
        '?q=lychee&cursor=garbage!',
        `?q=lychee&cursor=${forged.toString('base64url')}`,
        `?q=lychee&mode=archive&cursor=${cursor}`,
        `?q=lychees&cursor=${cursor}`,
      ]) {
        await expectError(user, query, 400, 'invalid_cursor');
      }
    });

    it('refuses a request without a valid token (401)', async () => {
      expect((await fetch(`${stack.api}/v1/search?q=a`)).status).toBe(401);
      await expectError('not-a-token', '?q=a', 401, 'invalid_token');
    });

    it('refuses a token without chat:history (403 insufficient_scope)', async () => {
      await expectError(await user.token('openid chat:exec chat:file'), '?q=a', 403, 'insufficient_scope');
    });
  });
});

/** The all-in-one database: the migration's extensions, trigger and indexes, and a search, on PGlite. */
describe('chat-service: message search on the embedded PostgreSQL (PGlite)', () => {
  let dataDir: string;
  let embedded: EmbeddedPostgres;
  let client: Client;
  let stack: RunningChatService;
  const search = searcher(() => stack);

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'fed-search-pglite-'));
    embedded = await startEmbeddedPostgres({ dataDir });
    await runMigrations(embedded.url);
    client = new Client({ connectionString: embedded.url });
    await client.connect();
    stack = await bootChatService({ databaseUrl: embedded.url });
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await client?.end();
    await embedded?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('finds by stem, by substring and by a CJK fragment, marking the matches', async () => {
    const { conversation, message } = fixtures((sql, values) => client.query(sql, values as unknown[]));
    const user = stack.user();
    const id = await conversation(user);
    const english = await message(user, id, 'The integration tests are running on the new build server today.');
    const japanese = await message(user, id, '東京の天気を教えてください。');
    const other = stack.user();
    await message(other, await conversation(other), 'The integration tests are running elsewhere.');
    const page = async (q: string) =>
      ((await search(user, `?q=${encodeURIComponent(q)}`)).body as unknown as SearchPage).results;
    expect((await page('runs')).map((result) => [result.messageId, result.snippet])).toEqual([
      [english, 'The integration tests are <mark>running</mark> on the new build server today.'],
    ]);
    expect((await page('tegra')).map((result) => result.messageId)).toEqual([english]);
    expect((await page('天気')).map((result) => [result.messageId, result.snippet])).toEqual([
      [japanese, '東京の<mark>天気</mark>を教えてください。'],
    ]);
  });
});
