import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { startAllInOnePlatform } from '../harness/all-in-one';
import { type LatencyResult, microsecondHistogram, microsecondsSince, summarize } from '../harness/latency';
import { type Row, printTable, writeResult } from '../harness/report';
import { withScratchDatabase } from '../harness/scratch-database';
import { type Benchmark, type BenchmarkContext } from './benchmark';

/** Issue goal: A2A `message/send` and MCP `execute_chat` add less than 2 ms (p50) to the chat API's turn. */
const ADDED_P50_GOAL_MS = 2;
const PROMPT = 'Say hello';
const MODEL = 'federation-agent';

type Door = 'chat' | 'a2a' | 'mcp';
const DOORS: readonly Door[] = ['chat', 'a2a', 'mcp'];

/** One whole turn through a door, answered in full: the response read to its end and checked. */
type TurnCall = () => Promise<void>;

function post(agent: http.Agent, url: URL, headers: Record<string, string>, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          response.statusCode === 200
            ? resolve(text)
            : reject(new Error(`${url.pathname} ${response.statusCode}: ${text}`)),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** The three front doors, each running the same turn (a new conversation, the demo model's answer). */
function doors(base: string, token: string, agent: http.Agent): Record<Door, TurnCall> {
  const auth = { authorization: `Bearer ${token}` };
  return {
    chat: async () => {
      const body = JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: PROMPT }] });
      const text = await post(agent, new URL(`${base}/api/v1/chat/completions`), auth, body);
      if (!text.includes('data: [DONE]')) throw new Error('chat: the stream did not end with [DONE]');
    },
    a2a: async () => {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: {
          message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: PROMPT }] },
        },
      });
      const answer = JSON.parse(
        await post(agent, new URL(`${base}/api/v1/a2a`), { ...auth, 'a2a-version': '0.3' }, body),
      ) as {
        result?: { status?: { state?: string } };
      };
      if (answer.result?.status?.state !== 'completed') throw new Error(`a2a: ${JSON.stringify(answer).slice(0, 300)}`);
    },
    mcp: async () => {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'execute_chat', arguments: { prompt: PROMPT } },
      });
      const headers = { ...auth, accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
      const text = await post(agent, new URL(`${base}/api/v1/mcp`), headers, body);
      // JSON, or the same message as the data of one SSE event.
      const json = text.trimStart().startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '');
      const answer = JSON.parse(json) as { result?: { isError?: boolean; structuredContent?: { text?: string } } };
      if (answer.result?.isError || typeof answer.result?.structuredContent?.text !== 'string') {
        throw new Error(`mcp: ${text.slice(0, 300)}`);
      }
    },
  };
}

/** Rounds of one turn per door, the doors in a rotating order so drift and warm caches touch each alike. */
async function measure(calls: Record<Door, TurnCall>, rounds: number): Promise<Record<Door, LatencyResult>> {
  const histograms = Object.fromEntries(DOORS.map((door) => [door, microsecondHistogram(60)])) as Record<
    Door,
    ReturnType<typeof microsecondHistogram>
  >;
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < DOORS.length; i++) {
      const door = DOORS[(round + i) % DOORS.length] as Door;
      const started = performance.now();
      await calls[door]();
      histograms[door].recordValue(microsecondsSince(started));
    }
  }
  return Object.fromEntries(DOORS.map((door) => [door, summarize(histograms[door], rounds)])) as Record<
    Door,
    LatencyResult
  >;
}

async function run({ distRoot, resultsDir, quick }: BenchmarkContext, databaseUrl: string): Promise<void> {
  const rounds = quick ? 30 : 300;
  const warmup = quick ? 5 : 30;
  const server = await startAllInOnePlatform({ distRoot, databaseUrl, name: 'protocols' });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const token = await server.signInDemoUser('openid chat:exec a2a:all mcp:all');
    const calls = doors(server.url, token, agent);
    await measure(calls, warmup);
    const latency = await measure(calls, rounds);

    const ms = (microseconds: number) => (microseconds / 1000).toFixed(2);
    const added = (door: Door) => (latency[door].p50 - latency.chat.p50) / 1000;
    const rows: Row[] = DOORS.map((door) => ({
      'front door': { chat: 'chat API (SSE to [DONE])', a2a: 'A2A message/send (blocking)', mcp: 'MCP execute_chat' }[
        door
      ],
      'p50 ms': ms(latency[door].p50),
      'p90 ms': ms(latency[door].p90),
      'p99 ms': ms(latency[door].p99),
      'added p50 ms': door === 'chat' ? '' : added(door).toFixed(2),
      goal: door === 'chat' ? '' : `< ${ADDED_P50_GOAL_MS} ms`,
      verdict: door === 'chat' ? '' : added(door) < ADDED_P50_GOAL_MS ? 'ok' : 'MISSED',
    }));
    printTable(
      `the same demo-model turn through each front door (all-in-one on PostgreSQL, ${rounds} turns each, one at a time)`,
      rows,
    );
    writeResult(resultsDir, 'protocols', { rounds, latencyMicroseconds: latency });
  } finally {
    agent.destroy();
    await server.close();
  }
}

export const protocolsBenchmark: Benchmark = {
  name: 'protocols',
  description:
    'A2A message/send and MCP execute_chat against the chat API, the same turn: time added by each front door',
  run: (context) => withScratchDatabase((databaseUrl) => run(context, databaseUrl)),
};
