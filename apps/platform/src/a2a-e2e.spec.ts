import {
  type AgentCard,
  type Artifact,
  type Message,
  type Part,
  Role,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
  TaskState,
} from '@a2a-js/sdk';
import { type Client, ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { useTestDatabase } from '@fed/persistence/testing';
import { ScriptedUpstream } from '@fed/testing';
import { randomUUID } from 'node:crypto';
import { AgentProtocolsModule } from './platform-features';
import { type ChatStack, bootChatStack } from './testing/boot-chat-stack';
import { textAnswer, toolCall } from './testing/model-answers';

// A2A end to end through the official SDK client, in both protocol generations: a v1.0 client that
// reads the card, and a v0.3 configuration (compat transport, kebab-case methods) as an older client.

type Generation = '1.0' | '0.3';

const text = (part: Part | undefined) => (part?.content?.$case === 'text' ? part.content.value : undefined);
const messageText = (message: Message | undefined) => message?.parts.map(text).join('') ?? '';

function userMessage(words: string, extra: Partial<Message> = {}): Message {
  return {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: words }, metadata: undefined, filename: '', mediaType: '' }],
    metadata: { reportMode: 'without' },
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
}

function request(message: Message, historyLength?: number): SendMessageRequest {
  return {
    tenant: '',
    message,
    configuration:
      historyLength === undefined
        ? undefined
        : { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength, returnImmediately: false },
    metadata: undefined,
  };
}

function artifactIds(task: Task): string[] {
  return task.artifacts.map((artifact) => artifact.artifactId);
}

describe('A2A through the official client', () => {
  const database = useTestDatabase();
  let upstream: ScriptedUpstream;
  let stack: ChatStack;

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
    stack = await bootChatStack(database.url, upstream.url, { features: [AgentProtocolsModule] });
  });
  beforeEach(() => upstream.reset());
  afterAll(async () => {
    await stack?.close();
    await upstream?.close();
  });

  const authorized =
    (token: string): typeof fetch =>
    (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${token}`);
      return fetch(input, { ...init, headers });
    };

  async function clientOf(generation: Generation, userId = randomUUID()): Promise<{ client: Client; token: string }> {
    const token = await stack.token('a2a:all', userId);
    const factory = new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl: authorized(token), legacyCompat: { enabled: true } })],
      cardResolver: new DefaultAgentCardResolver({ legacyCompat: { enabled: true } }),
    });
    if (generation === '1.0') return { client: await factory.createFromUrl(stack.service.url), token };
    // An older client sends no A2A-Version for the card and reads only its v0.3 fields.
    const card = (await (await fetch(`${stack.service.url}/.well-known/agent-card.json`)).json()) as Record<
      string,
      unknown
    >;
    delete card.supportedInterfaces;
    const legacyCard = new DefaultAgentCardResolver({ legacyCompat: { enabled: true } }).normalizeAgentCard(card);
    return { client: await factory.createFromAgentCard(legacyCard as AgentCard), token };
  }

  async function collect(events: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
    const seen: StreamResponse[] = [];
    for await (const event of events) seen.push(event);
    return seen;
  }

  const statusTexts = (events: StreamResponse[], state: TaskState) =>
    events.flatMap((event) =>
      event.payload?.$case === 'statusUpdate' && event.payload.value.status?.state === state
        ? [messageText(event.payload.value.status.message)]
        : [],
    );
  const artifactsOf = (events: StreamResponse[]): Artifact[] =>
    events.flatMap((event) =>
      event.payload?.$case === 'artifactUpdate' && event.payload.value.artifact ? [event.payload.value.artifact] : [],
    );
  const lastState = (events: StreamResponse[]) => {
    const last = events.at(-1)?.payload;
    return last?.$case === 'statusUpdate' ? last.value.status?.state : undefined;
  };

  describe.each<Generation>(['1.0', '0.3'])('A2A %s', (generation) => {
    it('speaks the generation it was configured for', async () => {
      const { client } = await clientOf(generation);
      expect(client.protocolVersion).toBe(generation);
    });

    it('answers message/send with the completed task: result artifact, summary, the message sent as history', async () => {
      upstream.enqueue(textAnswer(['First paragraph of the answer.\n\nSecond paragraph.']));
      const { client } = await clientOf(generation);
      const sent = userMessage('Say something');
      const answered = (await client.sendMessage(request(sent))) as Task;
      expect(answered.id).toBe(answered.contextId);
      expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(messageText(answered.status?.message)).toBe('First paragraph of the answer.');
      const [result] = answered.artifacts;
      expect(result?.artifactId).toMatch(/^result-[0-9a-f-]{36}$/);
      expect(text(result?.parts[0])).toBe('First paragraph of the answer.\n\nSecond paragraph.');
      expect(answered.history.map((message) => message.messageId)).toEqual([sent.messageId]);

      const got = await client.getTask({ tenant: '', id: answered.id, historyLength: undefined });
      expect(artifactIds(got)).toEqual(artifactIds(answered));
      expect(got.history.map((message) => [message.role, messageText(message)])).toEqual([
        [Role.ROLE_USER, 'Say something'],
        [Role.ROLE_AGENT, 'First paragraph of the answer.\n\nSecond paragraph.'],
      ]);
    });

    it('streams a turn: the submitted task first, working text pieces, the result artifact, then completed', async () => {
      upstream.enqueue(textAnswer(['Hello', ' from', ' the stream'], 20));
      const { client } = await clientOf(generation);
      const events = await collect(client.sendMessageStream(request(userMessage('Stream please'))));
      const first = events[0]?.payload;
      expect(first?.$case).toBe('task');
      if (first?.$case !== 'task') return;
      expect(first.value.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
      expect(first.value.history).toHaveLength(1);
      expect(statusTexts(events, TaskState.TASK_STATE_WORKING).join('')).toBe('Hello from the stream');
      const results = artifactsOf(events).filter((artifact) => artifact.artifactId.startsWith('result-'));
      expect(results.map((artifact) => text(artifact.parts[0]))).toEqual(['Hello from the stream']);
      expect(lastState(events)).toBe(TaskState.TASK_STATE_COMPLETED);
    });

    it('asks with input-required (the question, its interactionType) and completes after the reply on the same contextId', async () => {
      upstream.enqueue(
        toolCall('call_ask', 'ask_user', {
          interactionType: 'choice',
          content: 'Which city?',
          options: ['Paris', 'Rome'],
        }),
        textAnswer(['Rome it is.']),
      );
      const { client } = await clientOf(generation);
      const asked = (await client.sendMessage(request(userMessage('Plan a trip')))) as Task;
      expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(messageText(asked.status?.message)).toBe('Which city?');
      expect(asked.status?.message?.metadata).toEqual({ interactionType: 'choice' });
      expect(artifactIds(asked).some((id) => id.startsWith('interaction-'))).toBe(true);
      expect(artifactIds(asked).some((id) => id.startsWith('result-'))).toBe(false);
      const interaction = asked.artifacts.find((artifact) => artifact.artifactId.startsWith('interaction-'));
      expect(text(interaction?.parts[0])).toBe('Which city?');

      const replied = (await client.sendMessage(request(userMessage('Rome', { contextId: asked.contextId })))) as Task;
      expect(replied.id).toBe(asked.id);
      expect(replied.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      // The artifacts of every turn: the question of the first, the result of the second.
      expect(artifactIds(replied)).toEqual([...artifactIds(asked), expect.stringMatching(/^result-/)]);
    });

    it('cancels a long turn in the middle: the task ends canceled, the stream too, history keeps it unfinished', async () => {
      upstream.enqueue(
        textAnswer(
          Array.from({ length: 40 }, (_, index) => `piece ${index}\n`),
          150,
        ),
      );
      const { client, token } = await clientOf(generation);
      const stream = client.sendMessageStream(request(userMessage('Write a long story')));
      const seen: StreamResponse[] = [];
      let taskId = '';
      let canceledAt: number | undefined;
      for await (const event of stream) {
        seen.push(event);
        if (event.payload?.$case === 'task') taskId = event.payload.value.id;
        if (canceledAt === undefined && statusTexts(seen, TaskState.TASK_STATE_WORKING).length === 2) {
          canceledAt = seen.length;
          const canceled = await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
          expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
        }
      }
      expect(lastState(seen)).toBe(TaskState.TASK_STATE_CANCELED);
      // Stopped well before the 40 pieces of the scripted answer.
      expect(statusTexts(seen, TaskState.TASK_STATE_WORKING).length).toBeLessThan(20);
      const history = await fetch(`${stack.api}/v1/conversations/${taskId}/messages?order=asc`, {
        headers: { authorization: `Bearer ${await stack.userToken(userIdOf(token))}` },
      });
      const { messages } = (await history.json()) as { messages: { status: { unfinished: boolean } }[] };
      expect(messages.at(-1)?.status.unfinished).toBe(true);
      const got = await client.getTask({ tenant: '', id: taskId, historyLength: undefined });
      expect(got.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      expect(artifactIds(got).some((id) => id.startsWith('result-'))).toBe(false);
      await expect(client.cancelTask({ tenant: '', id: taskId, metadata: undefined })).rejects.toThrow();
    });

    it('resubscribes after a dropped connection: the task as it stands, then the rest, nothing twice', async () => {
      upstream.enqueue(
        toolCall('call_file', 'write_file', { filepath: 'notes.md', content: '# Notes' }),
        textAnswer(['one\n', 'two\n', 'three\n', 'four\n', 'five'], 200),
      );
      const { client } = await clientOf(generation);
      const dropped = new AbortController();
      const before: StreamResponse[] = [];
      let taskId = '';
      await expect(
        (async () => {
          for await (const event of client.sendMessageStream(request(userMessage('Count')), {
            signal: dropped.signal,
          })) {
            before.push(event);
            if (event.payload?.$case === 'task') taskId = event.payload.value.id;
            if (statusTexts(before, TaskState.TASK_STATE_WORKING).some((piece) => piece === 'two\n')) dropped.abort();
          }
        })(),
      ).rejects.toThrow();

      const after = await collect(client.resubscribeTask({ tenant: '', id: taskId }));
      const snapshot = after[0]?.payload;
      expect(snapshot?.$case).toBe('task');
      if (snapshot?.$case !== 'task') return;
      const sinceSnapshot = after.slice(1);
      const ids = [
        ...artifactIds(snapshot.value),
        ...artifactsOf(sinceSnapshot).map((artifact) => artifact.artifactId),
      ];
      expect(ids).toHaveLength(new Set(ids).size);
      expect(ids).toEqual(
        expect.arrayContaining([expect.stringMatching(/^file-notes\.md-/), expect.stringMatching(/^result-/)]),
      );
      // The answer so far (in the snapshot's status) and the pieces after it make the answer, once.
      const soFar =
        snapshot.value.status?.state === TaskState.TASK_STATE_WORKING ? messageText(snapshot.value.status.message) : '';
      const rest = statusTexts(sinceSnapshot, TaskState.TASK_STATE_WORKING)
        .filter((piece) => !piece.startsWith('Writing') && !piece.startsWith('Wrote'))
        .join('');
      const answer = 'one\ntwo\nthree\nfour\nfive';
      expect(answer.endsWith(rest)).toBe(true);
      expect(`${soFar.slice(soFar.indexOf('one'))}${rest}`).toBe(answer);
      expect(lastState(after)).toBe(TaskState.TASK_STATE_COMPLETED);
    });
  });

  describe('the v0.3 JSON-RPC transport on its own, which sends no A2A-Version', () => {
    async function legacyTransport(): Promise<{ transport: LegacyJsonRpcTransport; versions: (string | null)[] }> {
      const token = await stack.token('a2a:all');
      const versions: (string | null)[] = [];
      const fetchImpl: typeof fetch = (input, init) => {
        const headers = new Headers(init?.headers);
        versions.push(headers.get('a2a-version'));
        headers.set('authorization', `Bearer ${token}`);
        return fetch(input, { ...init, headers });
      };
      return {
        transport: new LegacyJsonRpcTransport({ endpoint: `${stack.service.url}/api/v1/a2a`, fetchImpl }),
        versions,
      };
    }

    it('is served as 0.3: send, get, stream, resubscribe and cancel', async () => {
      upstream.enqueue(
        textAnswer(['Plain answer.']),
        textAnswer(['Streamed', ' answer.'], 20),
        textAnswer(
          Array.from({ length: 40 }, (_, index) => `piece ${index}\n`),
          150,
        ),
      );
      const { transport, versions } = await legacyTransport();
      const answered = (await transport.sendMessage(request(userMessage('Hello')))) as Task;
      expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(messageText(answered.status?.message)).toBe('Plain answer.');
      const got = await transport.getTask({ tenant: '', id: answered.id, historyLength: undefined });
      expect(artifactIds(got)).toEqual(artifactIds(answered));

      const streamed = await collect(transport.sendMessageStream(request(userMessage('Stream'))));
      expect(statusTexts(streamed, TaskState.TASK_STATE_WORKING).join('')).toBe('Streamed answer.');
      expect(lastState(streamed)).toBe(TaskState.TASK_STATE_COMPLETED);

      const dropped = new AbortController();
      let taskId = '';
      await expect(
        (async () => {
          for await (const event of transport.sendMessageStream(request(userMessage('Long')), {
            signal: dropped.signal,
          })) {
            if (event.payload?.$case === 'task') taskId = event.payload.value.id;
            if (event.payload?.$case === 'statusUpdate') dropped.abort();
          }
        })(),
      ).rejects.toThrow();
      const resumed = transport.resubscribeTask({ tenant: '', id: taskId });
      const snapshot = (await resumed.next()).value as StreamResponse | undefined;
      expect(snapshot?.payload?.$case).toBe('task');
      const canceled = await transport.cancelTask({ tenant: '', id: taskId, metadata: undefined });
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      const rest: StreamResponse[] = [];
      for await (const event of resumed) rest.push(event);
      expect(lastState(rest)).toBe(TaskState.TASK_STATE_CANCELED);

      expect(versions.length).toBeGreaterThanOrEqual(6);
      expect(new Set(versions)).toEqual(new Set([null]));
    });

    it('answers -32001 through it for an unknown task, as with the header', async () => {
      const { transport } = await legacyTransport();
      await expect(transport.getTask({ tenant: '', id: randomUUID(), historyLength: undefined })).rejects.toThrow(
        /no such task/,
      );
    });

    it('lets the method name pick the generation whatever the header says, and refuses unsupported versions (-32600)', async () => {
      const token = await stack.token('a2a:all');
      const call = async (method: string, headers: Record<string, string>) => {
        const response = await fetch(`${stack.service.url}/api/v1/a2a`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ jsonrpc: '2.0', id: 5, method, params: { id: randomUUID() } }),
        });
        expect(response.status).toBe(200);
        return ((await response.json()) as { id: unknown; error?: { code: number; message: string } }).error;
      };
      const supported: Record<string, string>[] = [
        {},
        { 'a2a-version': '' },
        { 'a2a-version': ' ' },
        { 'a2a-version': '0.3' },
        { 'a2a-version': '0.3.2' },
        { 'a2a-version': '1.0' },
        { 'a2a-version': '1.0.0' },
        { 'a2a-version': '1.0.1' },
      ];
      // -32001: the task is unknown, so the request reached the method of its generation.
      for (const headers of supported) {
        expect((await call('tasks/get', headers))?.code).toBe(-32001);
        expect((await call('GetTask', headers))?.code).toBe(-32001);
      }
      for (const version of ['0.2', '1', '1.1', '0.3.x', '0.3.12345', '1.0.0.0']) {
        expect((await call('tasks/get', { 'a2a-version': version }))?.code).toBe(-32600);
      }
    });
  });

  it('offers a deliverable as a file artifact whose uri downloads with the same token', async () => {
    upstream.enqueue(
      toolCall('call_report', 'write_file', { filepath: 'report.md', content: '# Report\nAll good.', primary: true }),
      textAnswer(['The report is ready.']),
    );
    const { client, token } = await clientOf('1.0');
    const answered = (await client.sendMessage(request(userMessage('Write a report')))) as Task;
    const file = answered.artifacts.find((artifact) => artifact.artifactId.startsWith('file-report.md-'));
    expect(file?.metadata).toMatchObject({ filepath: 'report.md', source: 'agent', isPrimary: true, size: 18 });
    const part = file?.parts[0];
    expect(part?.content?.$case).toBe('url');
    expect(part?.filename).toBe('report.md');
    if (part?.content?.$case !== 'url') return;
    const download = await fetch(part.content.value, { headers: { authorization: `Bearer ${token}` } });
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('# Report\nAll good.');
  });

  it('streams a UI resource whose altText equals the working status text just before it', async () => {
    upstream.enqueue(
      toolCall('call_map', 'show_map', { title: 'Coffee', places: [{ id: 'p1', name: 'Alma' }] }),
      textAnswer(['Enjoy.']),
    );
    const { client } = await clientOf('0.3');
    const events = await collect(client.sendMessageStream(request(userMessage('Coffee nearby?'))));
    const index = events.findIndex(
      (event) =>
        event.payload?.$case === 'artifactUpdate' &&
        event.payload.value.artifact?.artifactId === 'ui-resource-call_map',
    );
    expect(index).toBeGreaterThan(0);
    const ui = events[index]?.payload;
    const before = events[index - 1]?.payload;
    if (ui?.$case !== 'artifactUpdate' || before?.$case !== 'statusUpdate') throw new Error('unexpected events');
    expect(ui.value.artifact?.name).toBe('UI resource');
    const data = ui.value.artifact?.parts[0]?.content;
    expect(data?.$case).toBe('data');
    const resource = data?.$case === 'data' ? (data.value as { altText: string; kind: string }) : undefined;
    expect(resource?.kind).toBe('map');
    expect(messageText(before.value.status?.message)).toBe(resource?.altText);
    expect(ui.value.artifact?.metadata?.messageId).toMatch(/^[0-9a-f-]{36}$/);
  });
});

function userIdOf(token: string): string {
  return (JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString('utf8')) as { sub: string }).sub;
}
