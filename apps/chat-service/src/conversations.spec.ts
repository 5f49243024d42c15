import { TEST_TENANT_ID } from '@fed/auth/testing';
import { type DomainError } from '@fed/contracts';
import { ArchiveRetentionJob, conversationsServiceFor } from '@fed/conversations';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { buildDist, cleanEnv, startProcess } from '@fed/testing';
import { randomUUID } from 'node:crypto';
import { type RunningChatService, type TestUser, bootChatService } from './testing/boot-chat-service';

const DAY_MS = 86_400_000;
/** The tenant of the test issuer's tokens. */
const TENANT = TEST_TENANT_ID;

interface ConversationItem {
  conversationId: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  archived?: boolean;
}
interface ConversationPage {
  conversations: ConversationItem[];
  hasMore: boolean;
  cursor?: string;
}
interface MessagePage {
  messages: Record<string, unknown>[];
  hasMore: boolean;
  cursor?: string;
}

/** Conversation management of document 2 over HTTP: list, history, rename, delete, restore, archive. */
describe('chat-service: conversation management', () => {
  let database: TestDatabase;
  let stack: RunningChatService;

  beforeAll(async () => {
    database = await createTestDatabase();
    stack = await bootChatService({ databaseUrl: database.url });
  });
  afterAll(async () => {
    await stack?.close();
    await database?.drop();
  });

  async function call(
    user: TestUser | string,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const token = typeof user === 'string' ? user : await user.token();
    const res = await fetch(`${stack.api}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  const errorCode = (response: { body: Record<string, unknown> }) => (response.body.error as { code?: string }).code;

  async function expectError(
    response: Promise<{ status: number; body: Record<string, unknown> }>,
    status: number,
    code: string,
  ) {
    const { status: actual, body } = await response;
    expect({ status: actual, code: (body.error as { code?: string } | undefined)?.code }).toEqual({ status, code });
  }

  // Fixtures are written directly: the turn admission that normally creates them is another slice.
  async function conversation(
    user: TestUser,
    options: { title?: string; updatedAt?: Date; archived?: boolean; tenantId?: string | null } = {},
  ): Promise<string> {
    const id = randomUUID();
    const updatedAt = options.updatedAt ?? new Date(Date.now() - 60_000);
    const createdAt = new Date(updatedAt.getTime() - 60_000);
    const tenantId = options.tenantId === undefined ? TENANT : options.tenantId;
    if (options.archived) {
      await database.dataSource.query(
        `INSERT INTO conversations.archived_conversations
           (id, user_id, tenant_id, title, created_at, updated_at, archived_at) VALUES ($1, $2, $3, $4, $5, $6, now())`,
        [id, user.userId, tenantId, options.title ?? 'a conversation', createdAt, updatedAt],
      );
    } else {
      await database.dataSource.query(
        `INSERT INTO conversations.conversations (id, user_id, tenant_id, title, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [id, user.userId, tenantId, options.title ?? 'a conversation', createdAt, updatedAt],
      );
    }
    return id;
  }

  async function message(
    user: TestUser,
    conversationId: string,
    options: {
      sender?: 'User' | 'AI';
      text?: string;
      processing?: boolean;
      unfinished?: boolean;
      files?: unknown[];
      deliverables?: unknown[];
    } = {},
  ): Promise<string> {
    const id = randomUUID();
    await database.dataSource.query(
      `INSERT INTO conversations.messages
         (id, conversation_id, user_id, tenant_id, sender, text, processing, unfinished, files, deliverables,
          created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now(), now())`,
      [
        id,
        conversationId,
        user.userId,
        TENANT,
        options.sender ?? 'User',
        options.text ?? 'hello',
        options.processing ?? false,
        options.unfinished ?? false,
        options.files ? JSON.stringify(options.files) : null,
        options.deliverables ? JSON.stringify(options.deliverables) : null,
      ],
    );
    return id;
  }

  async function task(
    conversationId: string,
    messageId: string,
    position: number,
    fields: { title?: string; content?: string; callId?: string; metadata?: object; files?: unknown[] } = {},
  ): Promise<void> {
    await database.dataSource.query(
      `INSERT INTO conversations.tasks
         (id, message_id, conversation_id, position, call_id, action_type, title, description, content, status,
          metadata, files, timestamp, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'tool_start', $6, NULL, $7, 'completed', $8, $9, $10, now(), now())`,
      [
        randomUUID(),
        messageId,
        conversationId,
        position,
        fields.callId ?? null,
        fields.title ?? null,
        fields.content ?? null,
        fields.metadata ? JSON.stringify(fields.metadata) : null,
        fields.files ? JSON.stringify(fields.files) : null,
        1_700_000_000_000 + position,
      ],
    );
  }

  async function location(conversationId: string): Promise<'active' | 'archive' | 'absent'> {
    const rows: { mode: string }[] = await database.dataSource.query(
      `SELECT 'active' AS mode FROM conversations.conversations WHERE id = $1
       UNION ALL SELECT 'archive' FROM conversations.archived_conversations WHERE id = $1`,
      [conversationId],
    );
    return (rows[0]?.mode as 'active' | 'archive' | undefined) ?? 'absent';
  }

  async function allPages(user: TestUser, query: string): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const path = `/v1/conversations?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const { status, body } = await call(user, 'GET', path);
      expect(status).toBe(200);
      const page = body as unknown as ConversationPage;
      ids.push(...page.conversations.map((item) => item.conversationId));
      expect('cursor' in page).toBe(page.hasMore);
      cursor = page.cursor;
      pages++;
    } while (cursor);
    return { ids, pages };
  }

  describe('GET /v1/conversations', () => {
    let user: TestUser;
    const ids: string[] = [];

    beforeAll(async () => {
      user = stack.user();
      const base = Date.now() - DAY_MS;
      // Two share an updatedAt: the id breaks the tie, so neither is lost between pages.
      for (let i = 0; i < 7; i++) {
        ids.push(await conversation(user, { title: `chat ${i}`, updatedAt: new Date(base + Math.min(i, 5) * 1000) }));
      }
    });

    const newestFirst = () => {
      const sorted = ids.map((id, i) => ({ id, at: Math.min(i, 5) }));
      sorted.sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1));
      return sorted.map((item) => item.id);
    };

    it('pages newest first by default, following the cursor across pages, each conversation once', async () => {
      const { ids: listed, pages } = await allPages(user, 'limit=3');
      expect(pages).toBe(3);
      expect(listed).toEqual(newestFirst());
    });

    it('pages oldest first with order=asc', async () => {
      const { ids: listed } = await allPages(user, 'limit=2&order=asc');
      expect(listed).toEqual(newestFirst().reverse());
    });

    it('answers the spec Conversation fields with ISO 8601 timestamps, without archived in the active list', async () => {
      const { body } = await call(user, 'GET', '/v1/conversations?limit=1');
      const page = body as unknown as ConversationPage;
      expect(page.hasMore).toBe(true);
      expect(Object.keys(page.conversations[0] ?? {}).sort()).toEqual([
        'conversationId',
        'createdAt',
        'title',
        'updatedAt',
      ]);
      expect(page.conversations[0]?.updatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    });

    it('defaults to 50 per page and says hasMore false, without a cursor, on the last page', async () => {
      const { body } = await call(user, 'GET', '/v1/conversations');
      expect(body).toMatchObject({ hasMore: false });
      expect(body.cursor).toBeUndefined();
      expect((body.conversations as unknown[]).length).toBe(7);
    });

    it('refuses a limit outside 1-100 or not an integer', async () => {
      for (const limit of ['0', '101', 'abc', '1.5', '-1', '']) {
        await expectError(call(user, 'GET', `/v1/conversations?limit=${limit}`), 400, 'invalid_parameter');
      }
      expect((await call(user, 'GET', '/v1/conversations?limit=100')).status).toBe(200);
      expect((await call(user, 'GET', '/v1/conversations?limit=1')).status).toBe(200);
    });

    it('refuses a cursor that is not a value from a previous response', async () => {
      const forged = Buffer.from(JSON.stringify({ v: 1, l: 'conversations:active', o: 'desc', a: ['x', 'y'] }));
      for (const cursor of ['garbage!', 'eyJ2IjoxfQ', forged.toString('base64url')]) {
        await expectError(
          call(user, 'GET', `/v1/conversations?cursor=${encodeURIComponent(cursor)}`),
          400,
          'invalid_cursor',
        );
      }
    });

    it('refuses a cursor of the other mode: cursors cannot be carried across modes', async () => {
      const archiveUser = stack.user();
      await conversation(archiveUser, { archived: true });
      await conversation(archiveUser, { archived: true });
      const archivePage = await call(archiveUser, 'GET', '/v1/conversations?mode=archive&limit=1');
      const archiveCursor = archivePage.body.cursor as string;
      expect(typeof archiveCursor).toBe('string');
      await expectError(call(archiveUser, 'GET', `/v1/conversations?cursor=${archiveCursor}`), 400, 'invalid_cursor');
      const activeCursor = (await call(user, 'GET', '/v1/conversations?limit=1')).body.cursor as string;
      await expectError(
        call(user, 'GET', `/v1/conversations?mode=archive&cursor=${activeCursor}`),
        400,
        'invalid_cursor',
      );
    });

    it('refuses a changed order while a cursor is reused', async () => {
      const cursor = (await call(user, 'GET', '/v1/conversations?limit=1')).body.cursor as string;
      await expectError(call(user, 'GET', `/v1/conversations?order=asc&cursor=${cursor}`), 400, 'invalid_cursor');
    });

    it('filters by title, case-insensitively, as a substring, with % and _ taken literally', async () => {
      const filterUser = stack.user();
      const percent = await conversation(filterUser, { title: 'Budget 100% done' });
      const underscore = await conversation(filterUser, { title: 'file_name review' });
      const plain = await conversation(filterUser, { title: 'Quarterly BUDGET' });
      await conversation(filterUser, { title: 'filename review' });
      const titled = async (title: string) =>
        (
          (await call(filterUser, 'GET', `/v1/conversations?title=${encodeURIComponent(title)}`)).body
            .conversations as ConversationItem[]
        )
          .map((item) => item.conversationId)
          .sort();
      expect(await titled('budget')).toEqual([percent, plain].sort());
      expect(await titled('%')).toEqual([percent]);
      expect(await titled('e_n')).toEqual([underscore]);
      expect(await titled('\\')).toEqual([]);
    });

    it('lists archived conversations with mode=archive, each with archived true, and not in the active list', async () => {
      const archiveUser = stack.user();
      const active = await conversation(archiveUser);
      const archived = await conversation(archiveUser, { archived: true, title: 'old one' });
      const archive = (await call(archiveUser, 'GET', '/v1/conversations?mode=archive'))
        .body as unknown as ConversationPage;
      expect(archive.conversations).toEqual([expect.objectContaining({ conversationId: archived, archived: true })]);
      const listed = (await call(archiveUser, 'GET', '/v1/conversations?mode=active'))
        .body as unknown as ConversationPage;
      expect(listed.conversations.map((item) => item.conversationId)).toEqual([active]);
    });

    it('refuses a mode other than active or archive', async () => {
      for (const mode of ['archived', 'ACTIVE', 'all']) {
        await expectError(call(user, 'GET', `/v1/conversations?mode=${mode}`), 400, 'invalid_parameter');
      }
      await expectError(call(user, 'GET', '/v1/conversations?mode=active&mode=archive'), 400, 'invalid_parameter');
    });

    it("lists only the caller's own conversations, never another user's or another tenant's", async () => {
      const other = stack.user();
      expect((await call(other, 'GET', '/v1/conversations')).body.conversations).toEqual([]);
      const otherTenant = await stack.issuer.mint({
        sub: user.userId,
        scope: 'chat:history',
        tenant: { id: randomUUID(), type: 'saas', endpoint: 'https://tenant-2.example.test' },
      });
      expect((await call(otherTenant, 'GET', '/v1/conversations')).body.conversations).toEqual([]);
    });
  });

  describe('GET /v1/conversations/:conversationId/messages', () => {
    let user: TestUser;
    let conversationId: string;
    let question: string;
    let answer: string;

    beforeAll(async () => {
      user = stack.user();
      conversationId = await conversation(user);
      question = await message(user, conversationId, {
        text: 'summarize this',
        files: [{ fileId: randomUUID(), mimeType: 'image/png', width: 10, height: 20 }],
      });
      answer = await message(user, conversationId, {
        sender: 'AI',
        text: 'here it is',
        unfinished: true,
        deliverables: [
          {
            filename: 'r.md',
            filepath: '/r.md',
            source: 'agent',
            isPrimary: true,
            createdAt: new Date().toISOString(),
          },
        ],
      });
      await task(conversationId, answer, 1, { title: 'second', content: 'done' });
      await task(conversationId, answer, 0, {
        callId: 'call_1',
        metadata: { uiResource: { type: 'data' } },
        files: [{ filename: 'a.txt', size: 3, filepath: '/a.txt' }],
      });
      for (let i = 0; i < 3; i++) await message(user, conversationId, { text: `more ${i}` });
    });

    it('returns Message objects with status, tasks by position, deliverables and files only when present', async () => {
      const { status, body } = await call(user, 'GET', `/v1/conversations/${conversationId}/messages?order=asc`);
      expect(status).toBe(200);
      const [first, second, third] = (body as unknown as MessagePage).messages;
      expect(first).toEqual({
        conversationId,
        messageId: question,
        sender: 'User',
        text: 'summarize this',
        createdAt: expect.stringMatching(/Z$/),
        updatedAt: expect.stringMatching(/Z$/),
        status: { processing: false, unfinished: false },
        tasks: [],
        files: [expect.objectContaining({ mimeType: 'image/png', width: 10, height: 20 })],
      });
      expect(second).toMatchObject({
        messageId: answer,
        sender: 'AI',
        status: { processing: false, unfinished: true },
        deliverables: [expect.objectContaining({ filename: 'r.md', isPrimary: true })],
      });
      expect(second?.files).toBeUndefined();
      expect(second?.archived).toBeUndefined();
      const tasks = second?.tasks as Record<string, unknown>[];
      expect(tasks.map((item) => item.title ?? null)).toEqual([null, 'second']);
      expect(tasks[0]).toEqual({
        messageId: answer,
        conversationId,
        callId: 'call_1',
        actionType: 'tool_start',
        status: 'completed',
        metadata: { uiResource: { type: 'data' } },
        files: [{ filename: 'a.txt', size: 3, filepath: '/a.txt' }],
        timestamp: 1_700_000_000_000,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(tasks[1]).not.toHaveProperty('files');
      expect(tasks[1]).not.toHaveProperty('callId');
      expect(third).not.toHaveProperty('deliverables');
      expect(third).not.toHaveProperty('files');
    });

    it('pages messages in both orders with cursors', async () => {
      const collect = async (order: string) => {
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const path = `/v1/conversations/${conversationId}/messages?limit=2&order=${order}${cursor ? `&cursor=${cursor}` : ''}`;
          const page = (await call(user, 'GET', path)).body as unknown as MessagePage;
          seen.push(...page.messages.map((item) => item.messageId as string));
          cursor = page.cursor;
        } while (cursor);
        return seen;
      };
      const ascending = await collect('asc');
      expect(ascending).toHaveLength(5);
      expect(ascending.slice(0, 2)).toEqual([question, answer]);
      expect(await collect('desc')).toEqual([...ascending].reverse());
    });

    it('carries archived true on every message of an archived conversation', async () => {
      const archivedId = await conversation(user, { archived: true });
      await message(user, archivedId);
      await message(user, archivedId, { sender: 'AI' });
      const { status, body } = await call(user, 'GET', `/v1/conversations/${archivedId}/messages`);
      expect(status).toBe(200);
      const { messages } = body as unknown as MessagePage;
      expect(messages).toHaveLength(2);
      expect(messages.every((item) => item.archived === true)).toBe(true);
    });

    it('refuses a malformed conversationId (400 invalid_conversation_id)', async () => {
      await expectError(call(user, 'GET', '/v1/conversations/not-a-uuid/messages'), 400, 'invalid_conversation_id');
    });

    it('refuses a limit that is not an integer 1-100, and a cursor not from a previous response', async () => {
      for (const limit of ['0', '101', 'abc']) {
        await expectError(
          call(user, 'GET', `/v1/conversations/${conversationId}/messages?limit=${limit}`),
          400,
          'invalid_parameter',
        );
      }
      await expectError(
        call(user, 'GET', `/v1/conversations/${conversationId}/messages?cursor=nope`),
        400,
        'invalid_cursor',
      );
      const otherId = await conversation(user);
      await message(user, otherId);
      await message(user, otherId);
      const cursor = (await call(user, 'GET', `/v1/conversations/${otherId}/messages?limit=1`)).body.cursor as string;
      await expectError(
        call(user, 'GET', `/v1/conversations/${conversationId}/messages?cursor=${cursor}`),
        400,
        'invalid_cursor',
      );
    });

    it('answers 404 conversation_not_found for an unknown conversation', async () => {
      await expectError(call(user, 'GET', `/v1/conversations/${randomUUID()}/messages`), 404, 'conversation_not_found');
    });
  });

  describe('PATCH /v1/conversations/:conversationId', () => {
    let user: TestUser;
    beforeAll(() => {
      user = stack.user();
    });

    it('renames a conversation and moves its updatedAt', async () => {
      const id = await conversation(user, { title: 'before', updatedAt: new Date(Date.now() - DAY_MS) });
      const { status, body } = await call(user, 'PATCH', `/v1/conversations/${id}`, { title: 'after' });
      expect(status).toBe(200);
      expect(Object.keys(body).sort()).toEqual(['conversationId', 'createdAt', 'title', 'updatedAt']);
      expect(body).toMatchObject({ conversationId: id, title: 'after' });
      expect(Date.parse(body.updatedAt as string)).toBeGreaterThan(Date.now() - 60_000);
      const listed = (await call(user, 'GET', '/v1/conversations?limit=1')).body as unknown as ConversationPage;
      expect(listed.conversations[0]).toMatchObject({ conversationId: id, title: 'after' });
    });

    it('accepts a title of 200 characters, counting characters rather than UTF-16 units', async () => {
      const id = await conversation(user);
      expect((await call(user, 'PATCH', `/v1/conversations/${id}`, { title: 'a'.repeat(200) })).status).toBe(200);
      const emoji = '😀'.repeat(200);
      const renamed = await call(user, 'PATCH', `/v1/conversations/${id}`, { title: emoji });
      expect(renamed).toMatchObject({ status: 200, body: { title: emoji } });
    });

    it('refuses a title missing, empty, over 200 characters, not a string, or not storable', async () => {
      const id = await conversation(user, { title: 'kept' });
      for (const body of [
        {},
        { title: '' },
        { title: '   ' },
        { title: 'a'.repeat(201) },
        { title: 42 },
        { title: null },
        { title: ['x'] },
        { title: 'nul\u0000byte' },
        { title: 'lone \ud800 surrogate' },
        [],
        'just a string',
      ]) {
        const response = await call(user, 'PATCH', `/v1/conversations/${id}`, body);
        expect({ body, status: response.status }).toEqual({ body, status: 400 });
      }
      const listed = (await call(user, 'GET', '/v1/conversations')).body as unknown as ConversationPage;
      expect(listed.conversations.find((item) => item.conversationId === id)?.title).toBe('kept');
    });

    it('refuses to rename an archived conversation (400 conversation_archived)', async () => {
      const id = await conversation(user, { archived: true });
      await expectError(call(user, 'PATCH', `/v1/conversations/${id}`, { title: 'x' }), 400, 'conversation_archived');
    });

    it('answers 400 for a malformed id and 404 for an unknown conversation', async () => {
      await expectError(call(user, 'PATCH', '/v1/conversations/123', { title: 'x' }), 400, 'invalid_conversation_id');
      await expectError(
        call(user, 'PATCH', `/v1/conversations/${randomUUID()}`, { title: 'x' }),
        404,
        'conversation_not_found',
      );
    });
  });

  describe('DELETE /v1/conversations/:conversationId', () => {
    let user: TestUser;
    beforeAll(() => {
      user = stack.user();
    });

    it('deletes the conversation with its messages and tasks', async () => {
      const id = await conversation(user);
      const answer = await message(user, id, { sender: 'AI' });
      await task(id, answer, 0);
      const { status, body } = await call(user, 'DELETE', `/v1/conversations/${id}`);
      expect({ status, body }).toEqual({ status: 200, body: { conversationId: id, deleted: true } });
      expect(await location(id)).toBe('absent');
      const [left] = await database.dataSource.query(
        `SELECT (SELECT count(*) FROM conversations.messages WHERE conversation_id = $1)::int AS messages,
                (SELECT count(*) FROM conversations.tasks WHERE conversation_id = $1)::int AS tasks`,
        [id],
      );
      expect(left).toEqual({ messages: 0, tasks: 0 });
      await expectError(call(user, 'GET', `/v1/conversations/${id}/messages`), 404, 'conversation_not_found');
    });

    it('refuses to delete a conversation that is processing (409 conversation_processing)', async () => {
      const id = await conversation(user);
      await message(user, id);
      await message(user, id, { sender: 'AI', processing: true });
      await expectError(call(user, 'DELETE', `/v1/conversations/${id}`), 409, 'conversation_processing');
      expect(await location(id)).toBe('active');
    });

    it('refuses to delete an archived conversation (400 conversation_archived; use restore)', async () => {
      const id = await conversation(user, { archived: true });
      await expectError(call(user, 'DELETE', `/v1/conversations/${id}`), 400, 'conversation_archived');
      expect(await location(id)).toBe('archive');
    });

    it('answers 400 for a malformed id and 404 for an unknown conversation', async () => {
      await expectError(call(user, 'DELETE', '/v1/conversations/x'), 400, 'invalid_conversation_id');
      await expectError(call(user, 'DELETE', `/v1/conversations/${randomUUID()}`), 404, 'conversation_not_found');
    });
  });

  describe('POST /v1/conversations/:conversationId/restore', () => {
    let user: TestUser;
    beforeAll(() => {
      user = stack.user();
    });

    it('moves an archived conversation back: listed active, editable and deletable again', async () => {
      const id = await conversation(user, { archived: true, title: 'archived chat' });
      await message(user, id);
      const { status, body } = await call(user, 'POST', `/v1/conversations/${id}/restore`);
      expect({ status, body }).toEqual({ status: 200, body: { conversationId: id, restored: true } });
      expect(await location(id)).toBe('active');
      const listed = (await call(user, 'GET', '/v1/conversations')).body as unknown as ConversationPage;
      expect(listed.conversations).toEqual([expect.objectContaining({ conversationId: id, title: 'archived chat' })]);
      expect(listed.conversations[0]).not.toHaveProperty('archived');
      const history = (await call(user, 'GET', `/v1/conversations/${id}/messages`)).body as unknown as MessagePage;
      expect(history.messages[0]).not.toHaveProperty('archived');
      expect((await call(user, 'PATCH', `/v1/conversations/${id}`, { title: 'renamed' })).status).toBe(200);
      expect((await call(user, 'DELETE', `/v1/conversations/${id}`)).status).toBe(200);
    });

    it('answers 404 when the conversation is already active or absent from the archive', async () => {
      const id = await conversation(user);
      await expectError(call(user, 'POST', `/v1/conversations/${id}/restore`), 404, 'conversation_not_found');
      await expectError(call(user, 'POST', `/v1/conversations/${randomUUID()}/restore`), 404, 'conversation_not_found');
      expect(await location(id)).toBe('active');
    });

    it('refuses a malformed conversationId (400)', async () => {
      await expectError(call(user, 'POST', '/v1/conversations/abc/restore'), 400, 'invalid_conversation_id');
    });
  });

  describe('ownership, authentication and scope', () => {
    it("answers 404 conversation_not_found for another user's conversation on every endpoint, changing nothing", async () => {
      const owner = stack.user();
      const intruder = stack.user();
      const active = await conversation(owner, { title: 'mine' });
      await message(owner, active);
      const archived = await conversation(owner, { archived: true });
      const attempts = [
        call(intruder, 'GET', `/v1/conversations/${active}/messages`),
        call(intruder, 'GET', `/v1/conversations/${archived}/messages`),
        call(intruder, 'PATCH', `/v1/conversations/${active}`, { title: 'stolen' }),
        call(intruder, 'PATCH', `/v1/conversations/${archived}`, { title: 'stolen' }),
        call(intruder, 'DELETE', `/v1/conversations/${active}`),
        call(intruder, 'DELETE', `/v1/conversations/${archived}`),
        call(intruder, 'POST', `/v1/conversations/${archived}/restore`),
      ];
      for (const attempt of attempts) await expectError(attempt, 404, 'conversation_not_found');
      expect(await location(active)).toBe('active');
      expect(await location(archived)).toBe('archive');
      const listed = (await call(owner, 'GET', '/v1/conversations')).body as unknown as ConversationPage;
      expect(listed.conversations[0]?.title).toBe('mine');
    });

    it("answers 404 for the same user's conversation under another tenant", async () => {
      const owner = stack.user();
      const id = await conversation(owner);
      const otherTenant = await stack.issuer.mint({
        sub: owner.userId,
        scope: 'chat:history',
        tenant: { id: randomUUID(), type: 'saas', endpoint: 'https://tenant-2.example.test' },
      });
      await expectError(call(otherTenant, 'GET', `/v1/conversations/${id}/messages`), 404, 'conversation_not_found');
    });

    it('refuses a token without chat:history on every endpoint (403 insufficient_scope)', async () => {
      const owner = stack.user();
      const id = await conversation(owner);
      const token = await owner.token('openid chat:exec chat:file');
      for (const [method, path] of [
        ['GET', '/v1/conversations'],
        ['GET', `/v1/conversations/${id}/messages`],
        ['PATCH', `/v1/conversations/${id}`],
        ['DELETE', `/v1/conversations/${id}`],
        ['POST', `/v1/conversations/${id}/restore`],
      ] as const) {
        await expectError(
          call(token, method, path, method === 'PATCH' ? { title: 'x' } : undefined),
          403,
          'insufficient_scope',
        );
      }
      expect(await location(id)).toBe('active');
    });

    it('refuses a request without a valid token (401)', async () => {
      const res = await fetch(`${stack.api}/v1/conversations`);
      expect(res.status).toBe(401);
      expect((await call('not-a-token', 'GET', '/v1/conversations')).status).toBe(401);
      expect(errorCode(await call('not-a-token', 'GET', '/v1/conversations'))).toBe('invalid_token');
    });
  });

  describe('archiving', () => {
    it('archives one conversation atomically, and refuses while a turn is processing (409)', async () => {
      const service = conversationsServiceFor(database.dataSource);
      const owner = stack.user();
      const id = await conversation(owner);
      const busy = await conversation(owner);
      await message(owner, busy, { sender: 'AI', processing: true });
      await expect(service.archive(id)).resolves.toEqual({ conversationId: id, archived: true });
      expect(await location(id)).toBe('archive');
      const refused = await service.archive(busy).catch((error: DomainError) => error.toApiError());
      expect(refused).toMatchObject({ code: 'conversation_processing', status: 409 });
      expect(await location(busy)).toBe('active');
      await expect(service.archive(id)).rejects.toMatchObject({ code: 'conversation_not_found' });
    });

    it("the retention job archives every user's conversations idle longer than CHAT_ARCHIVE_AFTER_DAYS", async () => {
      const job = stack.service.nest.get(ArchiveRetentionJob);
      const days = stack.service.config.chat.archiveAfterDays;
      expect(days).toBe(90);
      const [alice, bob] = [stack.user(), stack.user()];
      const idle = new Date(Date.now() - (days + 1) * DAY_MS);
      const old = [
        await conversation(alice, { updatedAt: idle }),
        await conversation(bob, { updatedAt: new Date(idle.getTime() - DAY_MS) }),
      ];
      const recent = await conversation(alice, { updatedAt: new Date(Date.now() - (days - 1) * DAY_MS) });
      const processing = await conversation(bob, { updatedAt: idle });
      await message(bob, processing, { sender: 'AI', processing: true });
      expect(await job.run()).toBe(2);
      for (const id of old) expect(await location(id)).toBe('archive');
      expect(await location(recent)).toBe('active');
      expect(await location(processing)).toBe('active');
      const listed = (await call(alice, 'GET', '/v1/conversations?mode=archive')).body as unknown as ConversationPage;
      expect(listed.conversations.map((item) => item.conversationId)).toEqual([old[0]]);
    });

    it('archives in batches, and passes running at once (several instances) move each conversation once', async () => {
      const owner = stack.user();
      const idle = new Date(Date.now() - 200 * DAY_MS);
      const ids: string[] = [];
      for (let i = 0; i < 25; i++) ids.push(await conversation(owner, { updatedAt: new Date(idle.getTime() + i) }));
      const instances = [1, 2, 3].map(() => conversationsServiceFor(database.dataSource));
      const counts = await Promise.all(instances.map((service) => service.archiveIdle(90, 4)));
      expect(counts.reduce((sum, count) => sum + count, 0)).toBe(25);
      for (const id of ids) expect(await location(id)).toBe('archive');
      const [{ archived }] = await database.dataSource.query(
        `SELECT count(*)::int AS archived FROM conversations.archived_conversations WHERE user_id = $1`,
        [owner.userId],
      );
      expect(archived).toBe(25);
    });

    it('CHAT_ARCHIVE_AFTER_DAYS=0 never archives', async () => {
      const owner = stack.user();
      const id = await conversation(owner, { updatedAt: new Date(Date.now() - 1000 * DAY_MS) });
      expect(await conversationsServiceFor(database.dataSource).archiveIdle(0)).toBe(0);
      expect(await location(id)).toBe('active');
      await conversationsServiceFor(database.dataSource).archive(id);
    });
  });

  describe('platformctl conversations', () => {
    const cli = 'dist/apps/platformctl/src/main.js';
    const run = async (args: string[]) => {
      const handle = startProcess(cli, args, cleanEnv({ DATABASE_URL: database.url }));
      const code = await handle.exited(60_000);
      return { code, output: handle.output() };
    };

    beforeAll(() => buildDist(), 120_000);

    it('archive moves a conversation to the archive, and restore moves it back', async () => {
      const owner = stack.user();
      const id = await conversation(owner);
      const archived = await run(['conversations', 'archive', id]);
      expect(archived).toEqual({ code: 0, output: expect.stringContaining(`archived ${id}`) });
      expect(await location(id)).toBe('archive');
      const listed = (await call(owner, 'GET', '/v1/conversations?mode=archive')).body as unknown as ConversationPage;
      expect(listed.conversations.map((item) => item.conversationId)).toEqual([id]);
      const restored = await run(['conversations', 'restore', id]);
      expect(restored).toEqual({ code: 0, output: expect.stringContaining(`restored ${id}`) });
      expect(await location(id)).toBe('active');
    });

    it('archive refuses a processing conversation and an unknown one, exit 1', async () => {
      const owner = stack.user();
      const id = await conversation(owner);
      await message(owner, id, { sender: 'AI', processing: true });
      const busy = await run(['conversations', 'archive', id]);
      expect(busy.code).toBe(1);
      expect(busy.output).toContain('refused (conversation_processing)');
      expect(await location(id)).toBe('active');
      const unknown = await run(['conversations', 'restore', randomUUID()]);
      expect(unknown.code).toBe(1);
      expect(unknown.output).toContain('refused (conversation_not_found)');
      const malformed = await run(['conversations', 'archive', 'not-a-uuid']);
      expect(malformed.code).not.toBe(0);
      expect(malformed.output).toContain('a conversation id is a UUID');
    });
  });
});
