import { TEST_TENANT_ID } from '@fed/auth/testing';
import { type MarketplaceAgentsAdminService, marketplaceAgentsAdminServiceFor } from '@fed/agent';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { type RunningChatService, bootChatService } from './testing/boot-chat-service';

interface Answer {
  status: number;
  body: Record<string, unknown> & { error?: { code?: string } };
}

interface Listed {
  agentId?: string;
  conversationId?: string;
  fileId?: string;
}

/**
 * Marketplace lists (issue 34, document 2: conversations and files are "authentication only" there):
 * without `X-Agent-Id` a service account's items across its agents, each naming its `agentId`; with it,
 * that agent's only. Ids still resolve only within the pair (service account, agent).
 */
describe('Marketplace edition: conversation and file lists across a service account’s agents', () => {
  let database: TestDatabase;
  let stack: RunningChatService;
  let agents: MarketplaceAgentsAdminService;
  const accounts = { one: randomUUID(), two: randomUUID() };
  const tokens: Record<keyof typeof accounts, string> = { one: '', two: '' };
  // The fixtures of each account and agent, newest last.
  const conversations: Record<string, string[]> = {};
  const files: Record<string, string[]> = {};
  let clock = Date.now() - 3_600_000;
  // Every fixture's id in the order it was made.
  const order: string[] = [];

  const serviceToken = (sub: string) =>
    stack.issuer.mint(
      {
        sub,
        azp: `panel-${sub.slice(0, 8)}`,
        scope: '',
        preferred_username: `service-account-panel-${sub.slice(0, 8)}@service-accounts.local`,
        realm_access: { roles: ['M2M'] },
      },
      { omit: ['sid', 'auth_time'] },
    );

  async function call(token: string, method: string, path: string, agentId?: string): Promise<Answer> {
    const res = await fetch(`${stack.api}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(agentId !== undefined ? { 'x-agent-id': agentId } : {}) },
    });
    const text = await res.text();
    const json = (res.headers.get('content-type') ?? '').includes('application/json');
    return { status: res.status, body: json && text ? (JSON.parse(text) as Answer['body']) : { text } };
  }

  // Conversations are written as turn admission writes them (its own slice): owner key `<sub>/<agentId>`.
  async function conversation(account: keyof typeof accounts, agentId: string, archived = false): Promise<string> {
    const id = randomUUID();
    clock += 1_000;
    const table = archived ? 'archived_conversations' : 'conversations';
    await database.dataSource.query(
      `INSERT INTO "conversations"."${table}" ("id", "user_id", "tenant_id", "title", "created_at", "updated_at"${archived ? ', "archived_at"' : ''})
       VALUES ($1, $2, $3, $4, $5, $5${archived ? ', $5' : ''})`,
      [
        id,
        `${accounts[account]}/${agentId}`,
        TEST_TENANT_ID,
        `${account} ${agentId} ${id.slice(0, 4)}`,
        new Date(clock),
      ],
    );
    (conversations[`${account}/${agentId}${archived ? '/archived' : ''}`] ??= []).push(id);
    return id;
  }

  async function upload(account: keyof typeof accounts, agentId: string): Promise<string> {
    const form = new FormData();
    form.append('file', new Blob([`bytes of ${account} ${agentId}`]), 'note.txt');
    form.append('filename', 'note.txt');
    const res = await fetch(`${stack.api}/v1/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens[account]}`, 'x-agent-id': agentId },
      body: form,
    });
    expect(res.status).toBe(201);
    const { fileId } = (await res.json()) as { fileId: string };
    (files[`${account}/${agentId}`] ??= []).push(fileId);
    return fileId;
  }

  /** Every item of a list, walking its cursor `limit` at a time. */
  async function walk(
    token: string,
    path: 'conversations' | 'files',
    query: string,
    agentId?: string,
  ): Promise<Listed[]> {
    const items: Listed[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 50; page += 1) {
      const separator = query ? '&' : '';
      const answer = await call(
        token,
        'GET',
        `/v1/${path}?${query}${cursor ? `${separator}cursor=${encodeURIComponent(cursor)}` : ''}`,
        agentId,
      );
      expect(answer.status).toBe(200);
      items.push(...(answer.body[path] as Listed[]));
      if (!answer.body.hasMore) return items;
      cursor = answer.body.cursor as string;
    }
    throw new Error('the list never ended');
  }

  const pairs = (items: Listed[], id: 'conversationId' | 'fileId') => items.map((item) => [item.agentId, item[id]]);
  const newestFirst = (store: Record<string, string[]>, account: keyof typeof accounts, agentIds: string[]) =>
    // Fixtures were made in clock order, so the creation order across agents is their order of insertion.
    Object.entries(store)
      .filter(([key]) => agentIds.some((agentId) => key === `${account}/${agentId}`))
      .flatMap(([key, ids]) => ids.map((id) => ({ id, agentId: key.split('/')[1] as string })))
      .sort((a, b) => order.indexOf(b.id) - order.indexOf(a.id))
      .map(({ agentId, id }) => [agentId, id]);

  beforeAll(async () => {
    database = await createTestDatabase();
    stack = await bootChatService({ databaseUrl: database.url, env: { EDITION: 'marketplace' } });
    agents = marketplaceAgentsAdminServiceFor(stack.service.nest.get(DataSource));
    for (const id of ['support', 'sales', 'retired', 'moved', 'quiet']) {
      await agents.create({ id, name: id, instructions: `Be ${id}.` });
    }
    tokens.one = await serviceToken(accounts.one);
    tokens.two = await serviceToken(accounts.two);
    // Interleaved across accounts and agents, so that a page mixes agents and a wrong filter shows.
    for (const [account, agentId] of [
      ['one', 'support'],
      ['two', 'support'],
      ['one', 'sales'],
      ['one', 'support'],
      ['two', 'sales'],
      ['one', 'sales'],
      ['one', 'retired'],
      ['one', 'moved'],
      ['one', 'support'],
      ['two', 'support'],
    ] as const) {
      order.push(await conversation(account, agentId));
      order.push(await upload(account, agentId));
    }
    order.push(await conversation('one', 'sales', true));
    order.push(await conversation('one', 'support', true));
    order.push(await conversation('two', 'sales', true));
    // One agent deleted, one moved to another tenant: the account can name neither any more.
    await agents.delete('retired');
    await agents.update('moved', { tenantId: randomUUID() });
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
    await database?.drop();
  });

  it("lists the service account's conversations across its agents without X-Agent-Id, each naming its agentId, newest first", async () => {
    const answer = await call(tokens.one, 'GET', '/v1/conversations');
    expect(answer.status).toBe(200);
    expect(pairs(answer.body.conversations as Listed[], 'conversationId')).toEqual(
      newestFirst(conversations, 'one', ['support', 'sales']),
    );
    expect(answer.body.hasMore).toBe(false);
    // Another service account's conversations never appear, nor do this one's of agents it cannot name.
    const second = await call(tokens.two, 'GET', '/v1/conversations');
    expect(pairs(second.body.conversations as Listed[], 'conversationId')).toEqual(
      newestFirst(conversations, 'two', ['support', 'sales']),
    );
  });

  it('lists only the named agent’s conversations with X-Agent-Id, and keeps each list’s cursor pages exact in both orders', async () => {
    const sales = await walk(tokens.one, 'conversations', 'limit=1', 'sales');
    expect(pairs(sales, 'conversationId')).toEqual(newestFirst(conversations, 'one', ['sales']));
    for (const query of ['limit=2', 'limit=3&order=asc']) {
      const expected = newestFirst(conversations, 'one', ['support', 'sales']);
      const walked = pairs(await walk(tokens.one, 'conversations', query), 'conversationId');
      expect([query, walked]).toEqual([query, query.includes('asc') ? expected.reverse() : expected]);
    }
    // The archive across agents, and the title filter across agents.
    const archive = await walk(tokens.one, 'conversations', 'mode=archive&limit=1');
    expect(
      archive.map((item) => [item.agentId, item.conversationId, (item as { archived?: boolean }).archived]),
    ).toEqual([
      ['support', conversations['one/support/archived']?.[0], true],
      ['sales', conversations['one/sales/archived']?.[0], true],
    ]);
    const titled = await call(tokens.one, 'GET', '/v1/conversations?title=one%20sales');
    expect(pairs(titled.body.conversations as Listed[], 'conversationId')).toEqual(
      newestFirst(conversations, 'one', ['sales']),
    );
  });

  it("lists the service account's files across its agents without X-Agent-Id and the named agent's with it", async () => {
    const all = await walk(tokens.one, 'files', 'limit=2');
    expect(pairs(all, 'fileId')).toEqual(newestFirst(files, 'one', ['support', 'sales']));
    const asc = await walk(tokens.one, 'files', 'limit=4&order=asc');
    expect(pairs(asc, 'fileId')).toEqual(newestFirst(files, 'one', ['support', 'sales']).reverse());
    const support = await walk(tokens.one, 'files', 'limit=1', 'support');
    expect(pairs(support, 'fileId')).toEqual(newestFirst(files, 'one', ['support']));
    const second = await walk(tokens.two, 'files', '');
    expect(pairs(second, 'fileId')).toEqual(newestFirst(files, 'two', ['support', 'sales']));
    // An agent with nothing of this account's: an empty list, not an error.
    expect(await call(tokens.one, 'GET', '/v1/files', 'quiet')).toMatchObject({
      status: 200,
      body: { files: [], hasMore: false },
    });
  });

  it('still resolves an id only within the pair: without X-Agent-Id 400 agent_id_required, under another agent or account 404', async () => {
    const conversationId = conversations['one/support']?.[0] as string;
    const fileId = files['one/support']?.[0] as string;
    for (const [method, path] of [
      ['GET', `/v1/conversations/${conversationId}/messages`],
      ['DELETE', `/v1/conversations/${conversationId}`],
      ['POST', `/v1/conversations/${conversationId}/restore`],
      ['GET', `/v1/files/${fileId}/content`],
      ['DELETE', `/v1/files/${fileId}`],
    ] as const) {
      const bare = await call(tokens.one, method, path);
      expect([method, path, bare.status, bare.body.error?.code]).toEqual([method, path, 400, 'agent_id_required']);
      for (const [token, agentId] of [
        [tokens.one, 'sales'],
        [tokens.two, 'support'],
      ] as const) {
        const stranger = await call(token, method, path, agentId);
        expect([method, path, agentId, stranger.status]).toEqual([method, path, agentId, 404]);
      }
    }
    expect((await call(tokens.one, 'GET', `/v1/conversations/${conversationId}/messages`, 'support')).status).toBe(200);
    expect((await call(tokens.one, 'GET', `/v1/files/${fileId}/content`, 'support')).status).toBe(200);
    // A named agent is still checked on a list.
    for (const [agentId, code] of [
      ['retired', 'agent_not_found'],
      ['moved', 'agent_not_found'],
      ['nobody', 'agent_not_found'],
    ] as const) {
      const refused = await call(tokens.one, 'GET', '/v1/conversations', agentId);
      expect([agentId, refused.status, refused.body.error?.code]).toEqual([agentId, 400, code]);
    }
  });
});
