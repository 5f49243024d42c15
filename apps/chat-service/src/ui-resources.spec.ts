import { TEST_TENANT_ID } from '@fed/auth/testing';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { randomUUID } from 'node:crypto';
import { type RunningChatService, type TestUser, bootChatService } from './testing/boot-chat-service';

/** The tenant of the test issuer's tokens. */
const TENANT = TEST_TENANT_ID;
const HTML = '<!doctype html><p>Grüße — a card</p>\n';

/** `GET /v1/conversations/:conversationId/ui-resources/:toolCallId` over HTTP: the spec's error table and its order. */
describe('chat-service: UI resource retrieval', () => {
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

  async function get(token: string, conversationId: string, toolCallId: string) {
    const res = await fetch(`${stack.api}/v1/conversations/${conversationId}/ui-resources/${toolCallId}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await res.json()) as Record<string, unknown>;
    return {
      status: res.status,
      body,
      code: (body.error as { code?: string } | undefined)?.code,
      headers: res.headers,
    };
  }

  async function conversation(user: TestUser, archived = false): Promise<string> {
    const id = randomUUID();
    const table = archived ? 'archived_conversations' : 'conversations';
    await database.dataSource.query(
      `INSERT INTO conversations.${table} (id, user_id, tenant_id, title, created_at, updated_at${archived ? ', archived_at' : ''})
       VALUES ($1, $2, $3, 'ui', now(), now()${archived ? ', now()' : ''})`,
      [id, user.userId, TENANT],
    );
    return id;
  }

  async function resource(
    user: TestUser,
    conversationId: string,
    toolCallId: string,
    fields: { type?: string; origin?: string; html?: string | null; mimeType?: string | null } = {},
  ): Promise<void> {
    const type = fields.type ?? 'html';
    const html = fields.html === undefined ? (type === 'html' ? HTML : null) : fields.html;
    await database.dataSource.query(
      `INSERT INTO conversations.ui_resources
         (conversation_id, tool_call_id, message_id, user_id, tenant_id, type, origin, mime_type, uri, tool_name,
          server_name, html, size, capabilities, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'ask_user', 'federation', $10, $11, '{"interaction_mode":"closed"}', now())`,
      [
        conversationId,
        toolCallId,
        randomUUID(),
        user.userId,
        TENANT,
        type,
        fields.origin ?? 'first-party',
        fields.mimeType === undefined ? (type === 'html' ? 'text/html;profile=mcp-app' : null) : fields.mimeType,
        type === 'html' ? `ui://federation/choice-card/${toolCallId}` : null,
        html,
        html === null ? null : Buffer.byteLength(html, 'utf8'),
      ],
    );
  }

  it('returns the HTML as JSON with toolCallId, type, origin and mimeType, not to be cached', async () => {
    const user = stack.user();
    const id = await conversation(user);
    await resource(user, id, 'call_card-1');
    const response = await get(await user.token(), id, 'call_card-1');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toEqual({
      toolCallId: 'call_card-1',
      type: 'html',
      origin: 'first-party',
      mimeType: 'text/html;profile=mcp-app',
      html: HTML,
    });
  });

  it('answers 403 insufficient_scope without chat:exec, a2a:all or mcp:all, before looking at anything (a random id)', async () => {
    const user = stack.user();
    const token = await user.token('openid chat:history chat:file');
    expect((await get(token, randomUUID(), 'call_1')).code).toBe('insufficient_scope');
    expect((await get(token, 'not-a-uuid', 'bad~id')).status).toBe(403);
    const id = await conversation(user);
    await resource(user, id, 'call_1');
    expect((await get(token, id, 'call_1')).status).toBe(403);
  });

  it('accepts a2a:all and mcp:all tokens as well as chat:exec', async () => {
    const user = stack.user();
    const id = await conversation(user);
    await resource(user, id, 'call_scopes');
    for (const scope of ['openid chat:exec', 'openid a2a:all', 'openid mcp:all']) {
      expect((await get(await user.token(scope), id, 'call_scopes')).status).toBe(200);
    }
  });

  it('answers 400 invalid_conversation_id for a conversationId that is not a UUID, before a malformed toolCallId', async () => {
    const token = await stack.user().token();
    const response = await get(token, 'not-a-uuid', 'bad.id');
    expect(response.status).toBe(400);
    expect(response.code).toBe('invalid_conversation_id');
    expect((await get(token, 'not-a-uuid', 'call_1')).code).toBe('invalid_conversation_id');
  });

  it('answers 400 invalid_parameter for a toolCallId with ~, . or an encoded space, or over 128 characters', async () => {
    const user = stack.user();
    const token = await user.token();
    const id = await conversation(user);
    for (const toolCallId of ['call~1', 'call.1', 'call%201', 'a'.repeat(129), 'call%2F1']) {
      const response = await get(token, id, toolCallId);
      expect([toolCallId, response.status, response.code]).toEqual([toolCallId, 400, 'invalid_parameter']);
    }
    // A malformed toolCallId is refused before the conversation is looked up.
    expect((await get(token, randomUUID(), 'call.1')).code).toBe('invalid_parameter');
  });

  it('takes a 128-character toolCallId of letters, digits, - and _ as well formed: unknown, it is 404 not_found', async () => {
    const user = stack.user();
    const id = await conversation(user);
    const longest = `A-_9${'x'.repeat(124)}`;
    const response = await get(await user.token(), id, longest);
    expect([response.status, response.code]).toEqual([404, 'not_found']);
    await resource(user, id, longest);
    expect((await get(await user.token(), id, longest)).status).toBe(200);
  });

  it("answers 404 conversation_not_found for an absent conversation or another user's, whatever the resource", async () => {
    const owner = stack.user();
    const id = await conversation(owner);
    await resource(owner, id, 'call_private');
    const stranger = await stack.user().token();
    expect((await get(stranger, id, 'call_private')).code).toBe('conversation_not_found');
    expect((await get(stranger, id, 'call_private')).status).toBe(404);
    expect((await get(await owner.token(), randomUUID(), 'call_private')).code).toBe('conversation_not_found');
  });

  it('finds the resources of an archived conversation', async () => {
    const user = stack.user();
    const id = await conversation(user, true);
    await resource(user, id, 'call_archived');
    const response = await get(await user.token(), id, 'call_archived');
    expect(response.status).toBe(200);
    expect(response.body.html).toBe(HTML);
  });

  it('answers 404 not_found for a data resource: only html resources can be retrieved', async () => {
    const user = stack.user();
    const id = await conversation(user);
    await resource(user, id, 'call_map', { type: 'data' });
    const response = await get(await user.token(), id, 'call_map');
    expect([response.status, response.code]).toEqual([404, 'not_found']);
  });

  it('answers 404 file_too_large for HTML over 512 KB, and returns HTML of exactly 512 KB', async () => {
    const user = stack.user();
    const id = await conversation(user);
    const exact = `<p>${'x'.repeat(524_288 - 7)}</p>`;
    await resource(user, id, 'call_big', { html: `${exact} ` });
    await resource(user, id, 'call_limit', { html: exact });
    const big = await get(await user.token(), id, 'call_big');
    expect([big.status, big.code]).toEqual([404, 'file_too_large']);
    const limit = await get(await user.token(), id, 'call_limit');
    expect(limit.status).toBe(200);
    expect(limit.body.html).toBe(exact);
  });

  it('deletes the resources with their conversation', async () => {
    const user = stack.user();
    const id = await conversation(user);
    await resource(user, id, 'call_gone');
    const deleted = await fetch(`${stack.api}/v1/conversations/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${await user.token()}` },
    });
    expect(deleted.status).toBe(200);
    const [{ left }] = (await database.dataSource.query(
      `SELECT count(*)::int AS "left" FROM conversations.ui_resources WHERE conversation_id = $1`,
      [id],
    )) as { left: number }[];
    expect(left).toBe(0);
  });
});
