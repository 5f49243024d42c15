import { type Deliverable, type Task } from '@fed/contracts';
import { conversationsServiceFor } from '@fed/conversations';
import { useTestDatabase } from '@fed/persistence/testing';
import { ScriptedUpstream } from '@fed/testing';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DataSource } from 'typeorm';
import { type ChatStack, bootChatStack } from './testing/boot-chat-stack';
import { runTurn } from './testing/chat-turn';
import { textAnswer, toolCall } from './testing/model-answers';

// A turn whose model writes files with `write_file`: the files show on the result tasks, in the final
// chunk and in history as deliverables, and download byte for byte through the artifact proxy.

interface StreamChunk {
  choices: {
    delta: { content?: string; tasks?: Task[] };
    finishReason: string | null;
    status?: string;
    deliverables?: Deliverable[];
  }[];
}

interface HistoryMessage {
  messageId: string;
  sender: string;
  tasks: Task[];
  deliverables?: Deliverable[];
}

const REPORT = '# Quarterly report\n\nGrüße aus Köln — 東京 ✓ 🚀\n'.repeat(40);
const TABLE = 'city,visits\nParis,3\nRome,2\n';

describe('deliverables of a turn (write_file, final chunk, history, download)', () => {
  const database = useTestDatabase();
  const blobDir = mkdtempSync(path.join(tmpdir(), 'deliverables-e2e-'));
  let upstream: ScriptedUpstream;
  let stack: ChatStack;

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
    stack = await bootChatStack(database.url, upstream.url, { env: { BLOB_STORE: 'fs', BLOB_DIR: blobDir } });
  });

  afterAll(async () => {
    await stack?.close();
    await upstream?.close();
    rmSync(blobDir, { recursive: true, force: true });
  });

  const chat = (token: string, content: string) =>
    runTurn<StreamChunk>(stack.api, token, { messages: [{ role: 'user', content }] });

  const download = (token: string, conversationId: string, query: string, headers: Record<string, string> = {}) =>
    fetch(`${stack.api}/v1/conversations/${conversationId}/deliverables/content?${query}`, {
      headers: { authorization: `Bearer ${token}`, ...headers },
    });

  it('writes two files, one primary: tasks files[], final chunk and history deliverables, byte-exact download', async () => {
    upstream.reset();
    upstream.enqueue(
      toolCall('call_report', 'write_file', { filepath: 'report.md', content: REPORT, primary: true }),
      toolCall('call_table', 'write_file', { filepath: 'data/visits.csv', content: TABLE }),
      // A bad path fails the call as a task; the turn goes on.
      toolCall('call_bad', 'write_file', { filepath: '../escape.txt', content: 'x' }),
      textAnswer(['Here are your files.']),
    );
    const token = await stack.userToken();
    const { response, chunks } = await chat(token, 'Write me a report');
    const conversationId = response.headers.get('x-conversation-id') as string;
    const messageId = response.headers.get('x-message-id') as string;

    const results = chunks
      .flatMap((chunk) => chunk.choices[0]?.delta.tasks ?? [])
      .filter((task) => task.actionType === 'tool_result');
    expect(results.map((task) => [task.callId, task.status, task.files])).toEqual([
      [
        'call_report',
        'completed',
        [{ filename: 'report.md', size: Buffer.byteLength(REPORT), filepath: 'report.md', mimeType: 'text/markdown' }],
      ],
      [
        'call_table',
        'completed',
        [{ filename: 'visits.csv', size: Buffer.byteLength(TABLE), filepath: 'data/visits.csv', mimeType: 'text/csv' }],
      ],
      ['call_bad', 'failed', undefined],
    ]);
    // The model was told why and answered after it.
    const requests = await upstream.waitForRequests(4);
    const lastMessages = (requests[3]?.json as { messages: { role: string; content: string }[] }).messages;
    expect(lastMessages.at(-1)?.content).toMatch(/filepath must/);

    const final = chunks.at(-1)?.choices[0];
    expect(final?.finishReason).toBe('stop');
    expect(final?.deliverables).toEqual([
      {
        filename: 'report.md',
        filepath: 'report.md',
        source: 'agent',
        isPrimary: true,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        mimeType: 'text/markdown',
        size: Buffer.byteLength(REPORT),
      },
      {
        filename: 'visits.csv',
        filepath: 'data/visits.csv',
        source: 'agent',
        isPrimary: false,
        createdAt: expect.any(String),
        mimeType: 'text/csv',
        size: Buffer.byteLength(TABLE),
      },
    ]);
    // Only the final chunk carries them.
    expect(chunks.slice(0, -1).some((chunk) => chunk.choices[0]?.deliverables)).toBe(false);

    const history = await fetch(`${stack.api}/v1/conversations/${conversationId}/messages?order=asc`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const { messages } = (await history.json()) as { messages: HistoryMessage[] };
    expect(messages[0]).not.toHaveProperty('deliverables');
    expect(messages[1]?.messageId).toBe(messageId);
    expect(messages[1]?.deliverables).toEqual(final?.deliverables);
    const historyResults = messages[1]?.tasks.filter((task) => task.actionType === 'tool_result') ?? [];
    expect(historyResults.map((task) => task.files)).toEqual(results.map((task) => task.files));

    const whole = await download(token, conversationId, `messageId=${messageId}&filepath=report.md`);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('text/markdown');
    expect(whole.headers.get('content-length')).toBe(String(Buffer.byteLength(REPORT)));
    expect(whole.headers.get('content-disposition')).toMatch(/^attachment; filename="report.md"/);
    expect(Buffer.from(await whole.arrayBuffer()).equals(Buffer.from(REPORT, 'utf8'))).toBe(true);

    const bytes = Buffer.from(REPORT, 'utf8');
    const part = await download(token, conversationId, `messageId=${messageId}&filepath=report.md`, {
      range: 'bytes=20-59',
    });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 20-59/${bytes.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(20, 60))).toBe(true);

    const nested = await download(token, conversationId, `messageId=${messageId}&filepath=data%2Fvisits.csv`);
    expect(await nested.text()).toBe(TABLE);
  });

  it('answers 404 to another user and for an unknown file, serves archived conversations, and forgets deleted ones', async () => {
    upstream.reset();
    upstream.enqueue(
      toolCall('call_one', 'write_file', { filepath: 'one.txt', content: 'only mine' }),
      textAnswer(['Saved.']),
    );
    const token = await stack.userToken();
    const { response, chunks } = await chat(token, 'Save a file');
    const conversationId = response.headers.get('x-conversation-id') as string;
    const messageId = response.headers.get('x-message-id') as string;
    // The only file is primary.
    expect(chunks.at(-1)?.choices[0]?.deliverables?.map((file) => file.isPrimary)).toEqual([true]);
    const query = `messageId=${messageId}&filepath=one.txt`;
    expect((await download(token, conversationId, query)).status).toBe(200);

    const stranger = await stack.userToken();
    const foreign = await download(stranger, conversationId, query);
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe('conversation_not_found');

    const unknown = await download(token, conversationId, `messageId=${messageId}&filepath=two.txt`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('not_found');

    for (const bad of [
      `messageId=not-a-uuid&filepath=one.txt`,
      `messageId=${messageId}&filepath=..%2Fone.txt`,
      `messageId=${messageId}`,
    ]) {
      expect((await download(token, conversationId, bad)).status).toBe(400);
    }
    expect((await download(token, 'not-a-uuid', query)).status).toBe(400);

    const blobsOf = () => {
      const folder = path.join(blobDir, 'deliverables', conversationId);
      try {
        return readdirSync(folder, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
      } catch {
        return [];
      }
    };
    expect(blobsOf().length).toBeGreaterThan(0);
    // Archived conversations' files stay downloadable.
    const conversations = conversationsServiceFor(stack.service.nest.get(DataSource));
    await conversations.archive(conversationId);
    const archived = await download(token, conversationId, query);
    expect(archived.status).toBe(200);
    expect(await archived.text()).toBe('only mine');
    await conversations.restoreAny(conversationId);

    const deleted = await fetch(`${stack.api}/v1/conversations/${conversationId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(deleted.status).toBe(200);
    expect((await download(token, conversationId, query)).status).toBe(404);
    const [row] = (await stack.service.nest
      .get(DataSource)
      .query(`SELECT count(*)::int AS "count" FROM "conversations"."deliverables" WHERE "conversation_id" = $1`, [
        conversationId,
      ])) as { count: number }[];
    expect(row?.count).toBe(0);
    expect(blobsOf()).toEqual([]);
  });
  it('keeps the files written before a failure: the error chunk and history carry them', async () => {
    upstream.reset();
    upstream.enqueue(toolCall('call_draft', 'write_file', { filepath: 'draft.txt', content: 'half done' }), {
      kind: 'status',
      status: 500,
      path: '/v1/chat/completions',
    });
    const token = await stack.userToken();
    const { response, chunks } = await chat(token, 'Draft something');
    const conversationId = response.headers.get('x-conversation-id') as string;
    const final = chunks.at(-1)?.choices[0];
    expect(final).toMatchObject({ finishReason: 'error', status: 'unfinished' });
    expect(final?.deliverables?.map((file) => [file.filepath, file.isPrimary, file.size])).toEqual([
      ['draft.txt', true, 9],
    ]);
    const history = await fetch(`${stack.api}/v1/conversations/${conversationId}/messages?order=asc`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const { messages } = (await history.json()) as { messages: HistoryMessage[] };
    expect(messages[1]?.deliverables).toEqual(final?.deliverables);
  });
});
