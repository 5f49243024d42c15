import { useTestDatabase } from '@fed/persistence/testing';
import { ScriptedUpstream } from '@fed/testing';
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { AgentProtocolsModule } from './platform-features';
import { type ChatStack, bootChatStack } from './testing/boot-chat-stack';
import { textAnswer, textThenToolCall } from './testing/model-answers';

// How an A2A task reads when its turn ends without finishing its answer (document 3, "A2A task"):
// the step limit ends the turn with what it has (`completed`, the result marked `unfinished`), an
// error is `failed`; stream, send and get say the same. And a request that meets a shutdown.

interface Artifact {
  artifactId: string;
  parts: { text?: string }[];
  metadata?: Record<string, unknown>;
}

interface TaskResult {
  kind: string;
  id: string;
  status: { state: string; message?: { parts: { text?: string }[] } };
  artifacts?: Artifact[];
  artifact?: Artifact;
  final?: boolean;
}

interface RpcAnswer {
  result?: TaskResult;
  error?: { code: number; message: string };
}

/** A model answer that says something, then asks for a tool: with one step allowed, the step limit. */
const textThenTool = (text: string) => textThenToolCall(text, 'call_again', 'write_file', {});

const message = (words: string) => ({
  kind: 'message',
  messageId: randomUUID(),
  role: 'user',
  parts: [{ kind: 'text', text: words }],
  metadata: { reportMode: 'without' },
});

function rpcBody(method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
}

function streamResults(text: string): TaskResult[] {
  return text
    .split('\n\n')
    .filter((block) => block.includes('data: '))
    .map((block) => (JSON.parse(block.slice(block.indexOf('data: ') + 6)) as RpcAnswer).result as TaskResult);
}

const resultOf = (artifacts: Artifact[] | undefined) =>
  artifacts?.find((artifact) => artifact.artifactId.startsWith('result-'));

describe('A2A turns that end without finishing their answer', () => {
  const database = useTestDatabase();
  let upstream: ScriptedUpstream;
  let stack: ChatStack;
  let token: string;

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
    stack = await bootChatStack(database.url, upstream.url, {
      features: [AgentProtocolsModule],
      env: { AGENT_MAX_STEPS: '1' },
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

  function post(body: string): Promise<Response> {
    return fetch(`${stack.service.url}/api/v1/a2a`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'a2a-version': '0.3' },
      body,
    });
  }

  async function rpc(method: string, params: unknown): Promise<TaskResult> {
    const answer = (await (await post(rpcBody(method, params))).json()) as RpcAnswer;
    expect(answer.error).toBeUndefined();
    return answer.result as TaskResult;
  }

  async function stream(words: string): Promise<TaskResult[]> {
    return streamResults(await (await post(rpcBody('message/stream', { message: message(words) }))).text());
  }

  it('reads a turn stopped by the step limit as completed with its partial answer, unfinished, on stream, send and get', async () => {
    upstream.enqueue(textThenTool('Looking into it.'), textThenTool('Still looking.'));
    const streamed = await stream('Work hard');
    const last = streamed.at(-1);
    expect(last).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    const streamedResult = streamed.find((event) => event.artifact?.artifactId.startsWith('result-'))?.artifact;
    expect(streamedResult?.metadata).toMatchObject({ unfinished: true });
    expect(streamedResult?.parts[0]?.text).toContain('Looking into it.');

    const sent = await rpc('message/send', { message: message('Again') });
    expect(sent.status.state).toBe('completed');
    expect(resultOf(sent.artifacts)?.metadata).toMatchObject({ unfinished: true });
    expect(resultOf(sent.artifacts)?.parts[0]?.text).toContain('Still looking.');

    const got = await rpc('tasks/get', { id: sent.id });
    expect(got.status).toEqual(sent.status);
    expect(got.artifacts).toEqual(sent.artifacts);
    const taskId = streamed[0]?.id as string;
    const gotStreamed = await rpc('tasks/get', { id: taskId });
    expect(gotStreamed.status.state).toBe('completed');
    expect(resultOf(gotStreamed.artifacts)).toEqual(streamedResult);
  });

  it('reads a turn that ended with an error as failed with its message, without a result, on stream, send and get', async () => {
    upstream.enqueue(
      { kind: 'status', status: 500, path: '/v1/chat/completions' },
      { kind: 'status', status: 500, path: '/v1/chat/completions' },
    );
    const streamed = await stream('Fail please');
    const last = streamed.at(-1);
    expect(last).toMatchObject({ kind: 'status-update', final: true, status: { state: 'failed' } });
    const reason = last?.status.message?.parts[0]?.text;
    expect(reason).toEqual(expect.any(String));
    expect(streamed.some((event) => event.artifact?.artifactId.startsWith('result-'))).toBe(false);

    const sent = await rpc('message/send', { message: message('Fail again') });
    expect(sent.status.state).toBe('failed');
    expect(sent.status.message?.parts[0]?.text).toBe(reason);
    expect(resultOf(sent.artifacts)).toBeUndefined();
    const got = await rpc('tasks/get', { id: sent.id });
    expect(got.status).toEqual(sent.status);
    expect(resultOf(got.artifacts)).toBeUndefined();
  });
});

describe('an A2A request that meets a shutdown', () => {
  const database = useTestDatabase();
  let upstream: ScriptedUpstream;
  let stack: ChatStack;

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
    stack = await bootChatStack(database.url, upstream.url, { features: [AgentProtocolsModule] });
  });
  afterAll(async () => {
    await stack?.close();
    await upstream?.close();
  });

  it('stops following the turn at once when the shutdown began before the request was handled', async () => {
    upstream.enqueue(textAnswer(['Slow ', 'answer ', 'indeed.'], 3000));
    const token = await stack.token('a2a:all');
    const body = Buffer.from(rpcBody('message/stream', { message: message('Take your time') }));
    const url = new URL(`${stack.service.url}/api/v1/a2a`);
    let shutdownBegan = 0;
    const answered = new Promise<{ status: number; at: number }>((resolve, reject) => {
      const req = httpRequest(
        url,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'a2a-version': '0.3',
            'content-length': String(body.length),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, at: Date.now() }));
        },
      );
      req.on('error', reject);
      // Half the body now, the rest once the shutdown has begun: the handler starts before, reads after.
      req.write(body.subarray(0, 10));
      setTimeout(() => {
        shutdownBegan = Date.now();
        void stack.service.shutdown('test');
        req.end(body.subarray(10));
      }, 300);
    });
    const { status, at } = await answered;
    expect(status).toBe(200);
    // The scripted answer takes 6 s; the stream ended without waiting for it.
    expect(at - shutdownBegan).toBeLessThan(1500);
  }, 20_000);
});
