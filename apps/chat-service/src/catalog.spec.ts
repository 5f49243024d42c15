import 'reflect-metadata';
import { catalogAdminServiceFor, catalogEntities } from '@fed/agent';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningChatService, bootChatService } from './testing/boot-chat-service';

interface ListBody {
  hasMore: boolean;
  cursor?: string;
  [list: string]: unknown;
}

const craftedCursor = (list: string, after: unknown[]) =>
  Buffer.from(JSON.stringify({ v: 1, l: list, o: 'asc', a: after }), 'utf8').toString('base64url');

describe('chat-service catalog lists (spec: GET /v1/personas, /v1/playbooks, /v1/skills)', () => {
  let database: TestDatabase;
  let stack: RunningChatService;
  let token: string;
  const playbookIds: Record<string, string> = {};
  const skillIds: Record<string, string> = {};

  const get = async (path: string, bearer: string | undefined = token) => {
    const res = await fetch(`${stack.api}${path}`, bearer ? { headers: { Authorization: `Bearer ${bearer}` } } : {});
    return { status: res.status, body: (await res.json()) as ListBody & { error?: { code: string } } };
  };

  /** Follows the cursors from the first page to the last; the names in the order they came. */
  const walk = async (list: string, query: string) => {
    const names: string[] = [];
    const pages: ListBody[] = [];
    let cursor: string | undefined;
    do {
      const { status, body } = await get(
        `/v1/${list}?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(status).toBe(200);
      pages.push(body);
      names.push(...(body[list] as { name: string }[]).map((item) => item.name));
      cursor = body.cursor;
    } while (cursor);
    return { names, pages };
  };

  beforeAll(async () => {
    database = await createTestDatabase({ entities: catalogEntities });
    const admin = catalogAdminServiceFor(database.dataSource);
    const text = { description: 'what it is for', instructions: 'secret prompt text' };
    for (const [key, name] of [
      ['echo', 'Echo'],
      ['alpha', 'Alpha'],
      ['delta', 'Delta'],
      ['charlie', 'Charlie'],
      ['bravo', 'Bravo'],
    ]) {
      await admin.create('persona', { key, name, ...text });
    }
    // Two playbooks share a name: the id orders them, so none is skipped or repeated across pages.
    for (const [label, name] of [
      ['Research', 'Research'],
      ['Email', 'Email'],
      ['Plan', 'Plan'],
      ['Plan 2', 'Plan'],
      ['Retired', 'Retired'],
    ]) {
      playbookIds[label] = (await admin.create('playbook', { name, ...text })).ref;
    }
    await admin.setEnabled('playbook', playbookIds.Retired as string, false);
    for (const name of ['Translate', 'Summarize', 'Unavailable']) {
      skillIds[name] = (await admin.create('skill', { name, ...text })).ref;
    }
    await admin.setEnabled('skill', skillIds.Unavailable as string, false);
    stack = await bootChatService({ databaseUrl: database.url });
    token = await stack.user().token();
  });

  afterAll(async () => {
    await stack?.close();
    await database?.drop();
  });

  it('lists personas with personaKey, name and description, never their instructions', async () => {
    const { status, body } = await get('/v1/personas?limit=1');
    expect(status).toBe(200);
    expect(body).toEqual({
      personas: [{ personaKey: 'alpha', name: 'Alpha', description: 'what it is for' }],
      hasMore: true,
      cursor: expect.any(String),
    });
    expect(JSON.stringify(body)).not.toContain('secret prompt text');
  });

  it('pages through a list with the cursor of the previous response, in name order by default (asc)', async () => {
    const { names, pages } = await walk('personas', 'limit=2');
    expect(names).toEqual(['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo']);
    expect(pages.map((page) => page.hasMore)).toEqual([true, true, false]);
    expect(pages[2]).not.toHaveProperty('cursor');
  });

  it('pages in descending name order with order=desc', async () => {
    const { names } = await walk('personas', 'limit=2&order=desc');
    expect(names).toEqual(['Echo', 'Delta', 'Charlie', 'Bravo', 'Alpha']);
  });

  it('gives every item once across pages of size 1, in both orders, names that tie included', async () => {
    const asc = await walk('playbooks', 'limit=1&order=asc');
    expect(asc.names).toEqual(['Email', 'Plan', 'Plan', 'Research']);
    const desc = await walk('playbooks', 'limit=1&order=desc');
    expect(desc.names).toEqual(['Research', 'Plan', 'Plan', 'Email']);
    const ids = (pages: ListBody[]) =>
      pages.flatMap((page) => (page.playbooks as { playbookId: string }[]).map((p) => p.playbookId));
    expect(new Set(ids(asc.pages)).size).toBe(4);
    expect(ids(desc.pages)).toEqual(ids(asc.pages).reverse());
  });

  it('lists only active playbooks, with playbookId', async () => {
    const { body } = await get('/v1/playbooks');
    const playbooks = body.playbooks as { playbookId: string; name: string; description: string }[];
    expect(playbooks.map((playbook) => playbook.playbookId)).not.toContain(playbookIds.Retired);
    expect(playbooks).toContainEqual({
      playbookId: playbookIds.Research,
      name: 'Research',
      description: 'what it is for',
    });
    expect(body.hasMore).toBe(false);
    expect(body).not.toHaveProperty('cursor');
  });

  it('lists only available skills, with skillId', async () => {
    const { body } = await get('/v1/skills');
    expect(body).toEqual({
      skills: [
        { skillId: skillIds.Summarize, name: 'Summarize', description: 'what it is for' },
        { skillId: skillIds.Translate, name: 'Translate', description: 'what it is for' },
      ],
      hasMore: false,
    });
  });

  it('refuses a limit outside 1-100 or not an integer with 400', async () => {
    for (const limit of ['0', '101', 'abc', '1.5', '-1']) {
      const { status, body } = await get(`/v1/skills?limit=${limit}`);
      expect([status, body.error?.code]).toEqual([400, 'invalid_parameter']);
    }
    expect((await get('/v1/skills?limit=100')).status).toBe(200);
  });

  it('refuses an order other than asc or desc with 400', async () => {
    const { status, body } = await get('/v1/personas?order=up');
    expect([status, body.error?.code]).toEqual([400, 'invalid_parameter']);
  });

  it('refuses a cursor that is not a value from a previous response of the same list and order with 400', async () => {
    const first = await get('/v1/personas?limit=1');
    const cursor = encodeURIComponent(first.body.cursor as string);
    const refused = [
      `/v1/personas?cursor=not-a-cursor`,
      `/v1/personas?cursor=${cursor}&order=desc`,
      `/v1/playbooks?cursor=${cursor}`,
      `/v1/playbooks?cursor=${craftedCursor('playbooks', ['Email', 'not-a-uuid'])}`,
      `/v1/personas?cursor=${craftedCursor('personas', ['Alpha', 'Bad Key'])}`,
      `/v1/skills?cursor=${craftedCursor('skills', ['Nul\u0000', skillIds.Summarize])}`,
      `/v1/skills?cursor=${craftedCursor('skills', [1, skillIds.Summarize])}`,
      `/v1/skills?cursor=${craftedCursor('skills', ['a', skillIds.Summarize, 'extra'])}`,
    ];
    for (const path of refused) {
      const { status, body } = await get(path);
      expect([path, status, body.error?.code]).toEqual([path, 400, 'invalid_cursor']);
    }
  });

  it('answers 403 without the chat:exec scope, and 401 without a token', async () => {
    const historyOnly = await stack.user().token('openid chat:history chat:file');
    for (const list of ['personas', 'playbooks', 'skills']) {
      const { status, body } = await get(`/v1/${list}`, historyOnly);
      expect([status, body.error?.code]).toEqual([403, 'insufficient_scope']);
      expect((await get(`/v1/${list}`, '')).status).toBe(401);
    }
  });
});
