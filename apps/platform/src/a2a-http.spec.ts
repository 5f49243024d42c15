import { useTestDatabase } from '@fed/persistence/testing';
import { heartbeatsEvery } from '@fed/server';
import { MetricsScrape, ScriptedUpstream } from '@fed/testing';
import { randomUUID } from 'node:crypto';
import { AgentProtocolsModule } from './platform-features';
import { type ChatStack, bootChatStack } from './testing/boot-chat-stack';
import { textAnswer, toolCall } from './testing/model-answers';

// The A2A endpoint on the wire (document 3, "A2A", "Errors", "Versioning"): what a client that is not
// the SDK sees, byte for byte where it matters (keep-alives, heartbeats, SSE ids), and every refusal.

interface RpcAnswer {
  jsonrpc: string;
  id: unknown;
  result?: Record<string, unknown> & {
    history?: { messageId: string }[];
    artifacts?: { artifactId: string; parts: Record<string, unknown>[] }[];
    status?: { state: string };
  };
  error?: { code: number; message: string };
}

interface SseEvent {
  id?: string;
  data: RpcAnswer;
}

const textPart = (text: string) => ({ kind: 'text', text });

describe('A2A on the wire', () => {
  const database = useTestDatabase();
  let upstream: ScriptedUpstream;
  let stack: ChatStack;
  let token: string;

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
    stack = await bootChatStack(database.url, upstream.url, {
      features: [AgentProtocolsModule],
      env: { CHAT_HEARTBEAT_SECONDS: '1', PROTOCOL_BODY_LIMIT_MB: '3' },
    });
  });
  beforeEach(async () => {
    upstream.reset();
    token = await stack.token('a2a:all');
  });
  afterAll(async () => {
    await stack?.close();
    await upstream?.close();
  });

  function post(body: string, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${stack.service.url}/api/v1/a2a`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'a2a-version': '0.3',
        ...headers,
      },
      body,
    });
  }

  async function rpc(method: string, params: unknown, headers: Record<string, string> = {}): Promise<RpcAnswer> {
    const response = await post(JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }), headers);
    expect(response.status).toBe(200);
    return (await response.json()) as RpcAnswer;
  }

  async function events(response: Response): Promise<{ text: string; events: SseEvent[] }> {
    const text = await response.text();
    const parsed = text
      .split('\n\n')
      .filter((block) => block.includes('data: '))
      .map((block) => {
        const lines = block.split('\n');
        const id = lines.find((line) => line.startsWith('id: '))?.slice(4);
        const data = JSON.parse(lines.find((line) => line.startsWith('data: '))?.slice(6) ?? 'null') as RpcAnswer;
        return id === undefined ? { data } : { id, data };
      });
    return { text, events: parsed };
  }

  const send = (words: string, extra: Record<string, unknown> = {}, message: Record<string, unknown> = {}) =>
    rpc('message/send', {
      message: {
        kind: 'message',
        messageId: randomUUID(),
        role: 'user',
        parts: [textPart(words)],
        metadata: { reportMode: 'without' },
        ...message,
      },
      ...extra,
    });

  describe('agent card', () => {
    it('is public and v0.3 without A2A-Version, with the v1.0 interfaces beside it', async () => {
      const response = await fetch(`${stack.service.url}/.well-known/agent-card.json`);
      expect(response.status).toBe(200);
      const card = (await response.json()) as Record<string, unknown>;
      expect(card).toMatchObject({
        protocolVersion: '0.3.0',
        url: expect.stringMatching(/^http:\/\/(localhost|127\.0\.0\.1):[0-9]+\/api\/v1\/a2a$/),
        preferredTransport: 'JSONRPC',
        capabilities: { streaming: true, pushNotifications: false },
        security: [{ oidc: ['a2a:all'] }],
        securitySchemes: {
          oidc: {
            type: 'openIdConnect',
            openIdConnectUrl: expect.stringMatching(/\/realms\/federation\/\.well-known\/openid-configuration$/),
          },
        },
      });
      expect((card.skills as { id: string }[]).map((skill) => skill.id)).toEqual(['execute_task', 'direct_llm']);
      expect(card.supportedInterfaces).toEqual([
        expect.objectContaining({ protocolBinding: 'JSONRPC', protocolVersion: '1.0' }),
        expect.objectContaining({ protocolBinding: 'JSONRPC', protocolVersion: '0.3' }),
      ]);
    });

    it('is the v1.0 card with A2A-Version 1.0', async () => {
      const response = await fetch(`${stack.service.url}/.well-known/agent-card.json`, {
        headers: { 'a2a-version': '1.0' },
      });
      const card = (await response.json()) as Record<string, unknown>;
      expect(card.url).toBeUndefined();
      expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: false });
      expect(card.securitySchemes).toEqual({
        oidc: { openIdConnectSecurityScheme: expect.objectContaining({ openIdConnectUrl: expect.any(String) }) },
      });
      expect(response.headers.get('vary')).toBe('A2A-Version');
    });
  });

  describe('refusals before JSON-RPC', () => {
    it('answers 401 with a challenge without a token, 403 without a2a:all', async () => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: randomUUID() } });
      const anonymous = await post(body, { authorization: '' });
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
      const other = await post(body, { authorization: `Bearer ${await stack.token('mcp:all')}` });
      expect(other.status).toBe(403);
    });

    it('answers 413 for a body over the limit and 415 for a body that is not JSON', async () => {
      const large = await post(
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { pad: 'x'.repeat(3.5 * 1024 * 1024) } }),
      );
      expect(large.status).toBe(413);
      const form = await post('a=b', { 'content-type': 'application/x-www-form-urlencoded' });
      expect(form.status).toBe(415);
      expect(((await form.json()) as RpcAnswer).error?.code).toBe(-32600);
    });
  });

  describe('JSON-RPC errors', () => {
    it('refuses an unsupported A2A-Version with -32600', async () => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { id: randomUUID() } });
      for (const headers of [{ 'a2a-version': '1' }, { 'a2a-version': '2.0' }, { 'a2a-version': '0.2' }]) {
        const answer = (await (await post(body, headers)).json()) as RpcAnswer;
        expect(answer).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32600, message: expect.any(String) } });
      }
    });

    it('answers -32700 for unparseable JSON, -32600 for no jsonrpc or deep nesting, -32601 for an unknown method', async () => {
      expect(((await (await post('{"jsonrpc": "2.0", "id": 1, ')).json()) as RpcAnswer).error?.code).toBe(-32700);
      const noVersion = JSON.stringify({ id: 1, method: 'tasks/get', params: { id: randomUUID() } });
      expect(((await (await post(noVersion)).json()) as RpcAnswer).error?.code).toBe(-32600);
      const deep = `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x","m":${'['.repeat(5000)}${']'.repeat(5000)}}}`;
      expect(((await (await post(deep)).json()) as RpcAnswer).error?.code).toBe(-32600);
      expect((await rpc('tasks/frobnicate', {})).error?.code).toBe(-32601);
      expect((await rpc('FrobnicateTask', {}, { 'a2a-version': '1.0' })).error?.code).toBe(-32601);
    });

    it('answers -32600 at once, before parsing, for 2 MB of [ and for 30,000 objects in one array', async () => {
      const started = Date.now();
      const brackets = (await (await post('['.repeat(2 * 1024 * 1024))).json()) as RpcAnswer;
      expect(brackets.error).toEqual({ code: -32600, message: expect.stringMatching(/deeper than 64 levels/) });
      const objects = Array.from({ length: 30_000 }, () => ({}));
      const wide = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tasks/get',
        params: { id: randomUUID(), objects },
      });
      const many = (await (await post(wide)).json()) as RpcAnswer;
      expect(many.error).toEqual({ code: -32600, message: expect.stringMatching(/more than 10000 objects/) });
      expect(Date.now() - started).toBeLessThan(3000);
    });

    it('answers -32602 for bad params: metadata values, NUL or lone surrogates, a file uri, an agent message', async () => {
      expect((await rpc('tasks/get', [1])).error?.code).toBe(-32602);
      expect((await send('hi', {}, { metadata: { agentMode: 'yes' } })).error?.code).toBe(-32602);
      expect((await send('hi', {}, { metadata: { agentLevel: 'max' } })).error?.code).toBe(-32602);
      expect((await send('hi', {}, { metadata: { reportMode: 'maybe' } })).error?.code).toBe(-32602);
      expect((await send('nul \u0000 here')).error?.code).toBe(-32602);
      expect((await send('lone \ud800 here')).error?.code).toBe(-32602);
      expect((await send('hi', {}, { role: 'agent' })).error?.code).toBe(-32602);
      const uri = await send(
        'read this',
        {},
        {
          parts: [
            textPart('read this'),
            { kind: 'file', file: { uri: 'https://example.com/a.pdf', mimeType: 'application/pdf' } },
          ],
        },
      );
      expect(uri.error?.code).toBe(-32602);
      expect(uri.error?.message).toMatch(/network/);
    });

    it('answers -32005 for a file the agent cannot read', async () => {
      const zip = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0, 1, 2, 3, 4]).toString('base64');
      const answer = await send(
        'unpack this',
        {},
        {
          parts: [
            textPart('unpack this'),
            { kind: 'file', file: { bytes: zip, name: 'archive.zip', mimeType: 'application/zip' } },
          ],
        },
      );
      expect(answer.error?.code).toBe(-32005);
    });

    it('leaves no uploaded file behind when a send with a file is refused', async () => {
      upstream.enqueue(textAnswer(['Theirs.']), textAnswer(['Read it.']));
      const theirs = await send('Their question');
      const userId = randomUUID();
      token = await stack.token('a2a:all', userId);
      const note = {
        kind: 'file',
        file: { bytes: Buffer.from('hello').toString('base64'), name: 'note.txt', mimeType: 'text/plain' },
      };
      const zip = {
        kind: 'file',
        file: { bytes: Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0]).toString('base64'), name: 'a.zip' },
      };
      const listed = async () => {
        const response = await fetch(`${stack.api}/v1/files`, {
          headers: { authorization: `Bearer ${await stack.token('chat:file', userId)}` },
        });
        expect(response.status).toBe(200);
        return ((await response.json()) as { files: { filename: string }[] }).files.map((file) => file.filename);
      };
      const elsewhere = await send('read', {}, { contextId: theirs.result?.id, parts: [textPart('read'), note] });
      expect(elsewhere.error?.code).toBe(-32001);
      const unreadable = await send('read', {}, { parts: [textPart('read'), note, zip] });
      expect(unreadable.error?.code).toBe(-32005);
      expect(await listed()).toEqual([]);
      // The same file in a send that is accepted is stored: the list above could have shown it.
      expect((await send('read', {}, { parts: [textPart('read'), note] })).result?.status?.state).toBe('completed');
      expect(await listed()).toEqual(['note.txt']);
    });

    it("answers -32001 for another user's task (get, cancel, resubscribe, send) and for an unknown one", async () => {
      upstream.enqueue(textAnswer(['Mine.']));
      const mine = await send('Private question');
      const taskId = mine.result?.id as string;
      token = await stack.token('a2a:all');
      expect((await rpc('tasks/get', { id: taskId })).error?.code).toBe(-32001);
      expect((await rpc('tasks/cancel', { id: taskId })).error?.code).toBe(-32001);
      expect((await rpc('GetTask', { id: taskId }, { 'a2a-version': '1.0' })).error?.code).toBe(-32001);
      expect((await rpc('CancelTask', { id: taskId }, { 'a2a-version': '1.0' })).error?.code).toBe(-32001);
      const resubscribe = await post(
        JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tasks/resubscribe', params: { id: taskId } }),
      );
      expect(((await resubscribe.json()) as RpcAnswer).error?.code).toBe(-32001);
      expect((await send('Let me in', {}, { contextId: taskId })).error?.code).toBe(-32001);
      expect((await rpc('tasks/get', { id: randomUUID() })).error?.code).toBe(-32001);
      expect((await rpc('tasks/get', { id: 'not-a-task' })).error?.code).toBe(-32001);
    });

    it('answers -32002 for cancelling a finished task and -32003 for push notification settings', async () => {
      upstream.enqueue(textAnswer(['Done.']));
      const done = await send('Quick one');
      expect((await rpc('tasks/cancel', { id: done.result?.id })).error?.code).toBe(-32002);
      const push = await rpc('tasks/pushNotificationConfig/set', {
        taskId: done.result?.id,
        pushNotificationConfig: { url: 'https://example.com/hook' },
      });
      expect(push.error?.code).toBe(-32003);
    });
  });

  describe('historyLength', () => {
    it('gives the 100 most recent when absent or not a non-negative integer, N most recent for N, none for 0', async () => {
      upstream.enqueue(textAnswer(['First.']), textAnswer(['Second.']));
      const first = await send('One');
      const taskId = first.result?.id as string;
      await send('Two', {}, { contextId: taskId });
      const lengthFor = async (historyLength: unknown) =>
        (await rpc('tasks/get', { id: taskId, ...(historyLength === undefined ? {} : { historyLength }) })).result
          ?.history?.length ?? 0;
      expect(await lengthFor(undefined)).toBe(4);
      expect(await lengthFor(3)).toBe(3);
      expect(await lengthFor(1)).toBe(1);
      expect(await lengthFor(0)).toBe(0);
      expect(await lengthFor(-1)).toBe(4);
      expect(await lengthFor(1.5)).toBe(4);
      expect(await lengthFor('3')).toBe(4);
      const latest = await rpc('tasks/get', { id: taskId, historyLength: 1 });
      expect(latest.result?.history?.[0]).toMatchObject({ role: 'agent', parts: [textPart('Second.')] });
    });

    it('gives the single message sent on send, and no history for 0', async () => {
      upstream.enqueue(textAnswer(['A.']), textAnswer(['B.']));
      const messageId = randomUUID();
      const sent = await send('Hello', { configuration: { historyLength: 5 } }, { messageId });
      expect(sent.result?.history?.map((message) => message.messageId)).toEqual([messageId]);
      const none = await send('Again', { configuration: { historyLength: 0 } }, { contextId: sent.result?.id });
      expect(none.result?.history).toBeUndefined();
    });

    it('reads params.historyLength of send and stream like configuration.historyLength, which wins', async () => {
      upstream.enqueue(textAnswer(['A.']), textAnswer(['B.']), textAnswer(['C.']));
      const none = await send('Hello', { historyLength: 0 });
      expect(none.result?.status?.state).toBe('completed');
      expect(none.result?.history).toBeUndefined();
      const kept = await send(
        'Again',
        { historyLength: 0, configuration: { historyLength: 3 } },
        { contextId: none.result?.id },
      );
      expect(kept.result?.history).toHaveLength(1);
      const streamed = await events(
        await post(
          JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'message/stream',
            params: {
              message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [textPart('Third')] },
              historyLength: 0,
            },
          }),
        ),
      );
      expect(streamed.events[0]?.data.result).toMatchObject({ kind: 'task' });
      expect(streamed.events[0]?.data.result?.history).toBeUndefined();
    });
  });

  describe('timing', () => {
    it('sends newlines while a blocking answer is not ready, then the JSON document', async () => {
      upstream.enqueue(textAnswer(['Slow\n', 'answer.'], 2500));
      const response = await post(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 'slow',
          method: 'message/send',
          params: {
            message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [textPart('Take your time')] },
          },
        }),
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const text = await response.text();
      expect(text).toMatch(/^\n+\{/);
      const answer = JSON.parse(text) as RpcAnswer;
      expect(answer.result?.status?.state).toBe('completed');
      // The newlines came from the process's heartbeat table, which holds no entry for it any more.
      expect(heartbeatsEvery(1000).size).toBe(0);
    });

    it('sends : heartbeat on a quiet stream, and an id with every event; the open stream is counted on /metrics', async () => {
      upstream.enqueue(textAnswer(['Quiet\n', 'then done.'], 2500));
      const response = await post(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 's',
          method: 'message/stream',
          params: {
            message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [textPart('Go slowly')] },
          },
        }),
      );
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const openStreams = async () =>
        (await MetricsScrape.of(stack.service.url)).sum('sse_streams_active', { kind: 'a2a' });
      expect(await openStreams()).toBe(1);
      const { text, events: seen } = await events(response);
      // Counted until it ends, then no longer.
      while ((await openStreams()) !== 0) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(heartbeatsEvery(1000).size).toBe(0);
      expect(text).toContain(': heartbeat\n\n');
      expect(seen.every((event) => event.id !== undefined)).toBe(true);
      expect(seen.at(-1)?.data.result).toMatchObject({
        kind: 'status-update',
        final: true,
        status: { state: 'completed' },
      });
    });

    it('resumes strictly after Last-Event-ID: the same events that followed it, none twice', async () => {
      upstream.enqueue(
        toolCall('call_w', 'write_file', { filepath: 'a.txt', content: 'A' }),
        textAnswer(['Line one\n', 'Line two\n', 'Done.']),
      );
      const streamed = await events(
        await post(
          JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'message/stream',
            params: { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [textPart('Write')] } },
          }),
        ),
      );
      const all = streamed.events;
      const taskId = (all[0]?.data.result as { id: string }).id;
      const ids = all.map((event) => event.id);
      expect(new Set(ids).size).toBe(ids.length);
      // Every position, an event's own offset or one inside a chunk (`<offset>.<n>`), resumes exactly.
      for (const cut of [1, Math.floor(all.length / 2), all.length - 2]) {
        const resumed = await events(
          await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/resubscribe', params: { id: taskId } }), {
            'last-event-id': all[cut]?.id as string,
          }),
        );
        expect(resumed.events.map((event) => event.id)).toEqual(ids.slice(cut + 1));
        expect(resumed.events.map((event) => event.data)).toEqual(all.slice(cut + 1).map((event) => event.data));
      }
    });
  });

  describe('resubscribe after another turn began', () => {
    const streamBody = (words: string, contextId?: string) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/stream',
        params: {
          message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [textPart(words)], contextId },
        },
      });
    const resubscribe = (taskId: string, lastEventId: string) =>
      post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/resubscribe', params: { id: taskId } }), {
        'last-event-id': lastEventId,
      });
    const workingText = (list: SseEvent[]) =>
      list
        .map(
          (event) =>
            event.data.result as { kind?: string; status?: { state: string; message?: { parts: { text: string }[] } } },
        )
        .filter((result) => result.kind === 'status-update' && result.status?.state === 'working')
        .map((result) => result.status?.message?.parts[0]?.text ?? '')
        .join('');

    it("answers an earlier turn's Last-Event-ID with the task as it stands, then the new run after it", async () => {
      upstream.enqueue(textAnswer(['First turn.']), textAnswer(['Second ', 'turn ', 'slowly.'], 400));
      const first = await events(await post(streamBody('One')));
      const taskId = (first.events[0]?.data.result as { id: string }).id;
      const earlier = first.events.at(-1)?.id as string;
      // The second turn runs; nobody follows it yet.
      const second = await send('Two', { configuration: { blocking: false } }, { contextId: taskId });
      expect(second.result?.status?.state).not.toBe('completed');

      const resumed = await events(await resubscribe(taskId, earlier));
      const snapshot = resumed.events[0]?.data.result as unknown as {
        kind: string;
        artifacts: { artifactId: string }[];
        status: { state: string; message?: { parts: { text: string }[] } };
      };
      expect(snapshot.kind).toBe('task');
      // The earlier turn's end is in the snapshot, none of its events again.
      expect(snapshot.artifacts.filter((artifact) => artifact.artifactId.startsWith('result-'))).toHaveLength(1);
      const earlierIds = new Set(first.events.map((event) => event.id));
      expect(resumed.events.filter((event) => earlierIds.has(event.id))).toEqual([]);
      const soFar = snapshot.status.state === 'working' ? (snapshot.status.message?.parts[0]?.text ?? '') : '';
      expect(`${soFar}${workingText(resumed.events.slice(1))}`).toBe('Second turn slowly.');
      expect(resumed.events.at(-1)?.data.result).toMatchObject({
        kind: 'status-update',
        status: { state: 'completed' },
      });
      expect(resumed.events.map((event) => event.id)).toHaveLength(
        new Set(resumed.events.map((event) => event.id)).size,
      );

      // An id of no event of this task: the task as it stands (here finished), and the end.
      const unknown = await events(await resubscribe(taskId, '1-0'));
      expect(unknown.events.map((event) => event.data.result)).toEqual([
        expect.objectContaining({ kind: 'task', status: expect.objectContaining({ state: 'completed' }) }),
      ]);
    });
  });

  describe('wire shapes', () => {
    it('shows a file artifact as a v0.3 file part and as a v1.0 url part', async () => {
      upstream.enqueue(
        toolCall('call_csv', 'write_file', { filepath: 'data/table.csv', content: 'a,b\n1,2\n' }),
        textAnswer(['Here is the table.']),
      );
      const sent = await send('Make a table');
      const taskId = sent.result?.id as string;
      expect(sent.result).toMatchObject({
        kind: 'task',
        id: taskId,
        contextId: taskId,
        status: { state: 'completed' },
      });
      const legacy = sent.result?.artifacts?.find((artifact) => artifact.artifactId.startsWith('file-data/table.csv-'));
      expect(legacy?.parts[0]).toEqual({
        kind: 'file',
        file: {
          uri: expect.stringContaining(`/api/v1/conversations/${taskId}/deliverables/content?messageId=`),
          mimeType: 'text/csv',
          name: 'table.csv',
        },
      });
      const current = await rpc('GetTask', { id: taskId }, { 'a2a-version': '1.0' });
      const file = current.result?.artifacts?.find((artifact) =>
        artifact.artifactId.startsWith('file-data/table.csv-'),
      );
      expect(file?.parts[0]).toEqual({
        url: expect.stringContaining('filepath=data%2Ftable.csv'),
        mediaType: 'text/csv',
        filename: 'table.csv',
      });
      expect(current.result?.status).toMatchObject({ state: 'TASK_STATE_COMPLETED' });
    });
  });
});
