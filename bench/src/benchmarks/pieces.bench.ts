import { testServiceUrls } from '@fed/config';
import { deleteRedisKeys } from '@fed/testing';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startAllInOnePlatform } from '../harness/all-in-one';
import { type LatencyResult, microsecondHistogram, summarize } from '../harness/latency';
import { type Row, printTable, writeResult } from '../harness/report';
import { withScratchDatabase } from '../harness/scratch-database';
import { openSseStream } from '../harness/sse-stream';
import { type Benchmark, type BenchmarkContext } from './benchmark';

/** Issue goals: a model's piece reaches the client within 3 ms (p50) with one stream, 10 ms with 1,000. */
const GOAL = { oneStreamP50Ms: 3, manyStreamsP50Ms: 10 };
const MODEL = 'federation-agent';
const AGENT_MODEL = 'pieces-model';
/**
 * Each piece's text: its send time on the bench's clock (`performance.now()` in µs, base 36, so that no
 * run of digits looks like a phone or card number to the content filter), so the client can tell its age.
 */
const STAMP = /@([0-9a-z]+) /g;
const stamp = () => `@${Math.round(performance.now() * 1000).toString(36)} `;
const stampedAt = (text: string) => parseInt(text, 36) / 1000;

interface AnswerShape {
  pieces: number;
  pauseMs: number;
}

const sseFrame = (data: unknown) => `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
const completionChunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
  id: 'chatcmpl-pieces',
  object: 'chat.completion.chunk',
  created: 0,
  model: 'upstream',
  choices: [{ index: 0, delta, finish_reason: finishReason }],
});

/**
 * The model provider, in the bench's process: every streamed answer is `shape.pieces` pieces
 * `shape.pauseMs` apart, each piece's text the moment it was written.
 */
async function startUpstream(shape: () => AnswerShape): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}') as { stream?: boolean };
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'chatcmpl-pieces',
            object: 'chat.completion',
            created: 0,
            model: 'upstream',
            choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          }),
        );
        return;
      }
      const { pieces, pauseMs } = shape();
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(sseFrame(completionChunk({ role: 'assistant', content: '' })));
      void (async () => {
        for (let piece = 0; piece < pieces && !res.destroyed; piece++) {
          if (piece > 0) await sleep(pauseMs);
          res.write(sseFrame(completionChunk({ content: stamp() })));
        }
        if (res.destroyed) return;
        res.write(sseFrame(completionChunk({}, 'stop')));
        res.end(sseFrame('[DONE]'));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface TurnsResult {
  turns: number;
  /** Turns that did not end with `[DONE]` and every piece. */
  incomplete: number;
  /** Why, by kind: an error chunk's code, a stream broken, pieces missing. */
  problems: Record<string, number>;
  pieces: number;
  /** Content events the clients received per turn, mean. */
  contentEventsPerTurn: number;
  latency: LatencyResult;
}

/**
 * `streams` clients, each running `turnsPerStream` turns one after the other (each a new conversation),
 * the clients' starts spread over `spreadMs`; the age of every piece when it reached its client. Pieces
 * received before every client had started are not counted (the ramp is not the steady state).
 */
async function runTurns(
  chatUrl: string,
  token: string,
  options: {
    streams: number;
    turnsPerStream: number;
    spreadMs: number;
    piecesPerTurn: number;
    /** Unset: the API's default (`plain`, Markdown stripped). */
    outputFormat?: 'plain' | 'markdown';
  },
): Promise<TurnsResult> {
  const histogram = microsecondHistogram(60);
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const url = new URL(`${chatUrl}/api/v1/chat/completions`);
  let started = 0;
  let pieces = 0;
  let events = 0;
  let turns = 0;
  let incomplete = 0;
  const problems: Record<string, number> = {};
  const body = JSON.stringify({
    model: MODEL,
    stream: true,
    messages: [{ role: 'user', content: 'go' }],
    ...(options.outputFormat ? { outputFormat: options.outputFormat } : {}),
  });
  const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` };
  const oneTurn = async () => {
    let seen = 0;
    let done = false;
    let errorCode: string | undefined;
    const stream = await openSseStream(
      agent,
      url,
      { method: 'POST', headers, body },
      {
        onEvent: ({ data }) => {
          const at = performance.now();
          if (data === '[DONE]') {
            done = true;
            return;
          }
          const chunk = JSON.parse(data) as { choices: { delta: { content?: string } }[]; error?: { code?: string } };
          if (chunk.error) errorCode = chunk.error.code ?? 'error';
          const content = chunk.choices[0]?.delta.content;
          if (!content) return;
          events++;
          for (const match of content.matchAll(STAMP)) {
            seen++;
            if (started < options.streams) continue;
            histogram.recordValue(Math.max(1, Math.round((at - stampedAt(match[1] as string)) * 1000)));
            pieces++;
          }
        },
      },
    );
    const failure = await stream.closed;
    turns++;
    if (failure || !done || seen !== options.piecesPerTurn) {
      incomplete++;
      const kind = errorCode
        ? `error chunk ${errorCode}`
        : failure
          ? 'stream broken'
          : !done
            ? 'no [DONE]'
            : `${seen} of ${options.piecesPerTurn} pieces`;
      problems[kind] = (problems[kind] ?? 0) + 1;
    }
  };
  await Promise.all(
    Array.from({ length: options.streams }, async (_, index) => {
      await sleep((options.spreadMs * index) / options.streams);
      started++;
      for (let turn = 0; turn < options.turnsPerStream; turn++) await oneTurn();
    }),
  );
  agent.destroy();
  return {
    turns,
    incomplete,
    problems,
    pieces,
    contentEventsPerTurn: Math.round((events / Math.max(1, turns)) * 10) / 10,
    latency: summarize(histogram, pieces),
  };
}

async function run({ distRoot, resultsDir, quick }: BenchmarkContext, databaseUrl: string): Promise<void> {
  let shape: AnswerShape = { pieces: 1, pauseMs: 0 };
  const upstream = await startUpstream(() => shape);
  const { redisUrl } = testServiceUrls();
  const redisKeyPrefix = `bench:pieces:${randomUUID().slice(0, 8)}:`;
  const server = await startAllInOnePlatform({
    distRoot,
    databaseUrl,
    name: 'pieces',
    env: (dataDir) => {
      const routingFile = path.join(dataDir, 'routing.json');
      writeFileSync(
        routingFile,
        JSON.stringify({
          providers: [{ name: 'bench', type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-bench' }],
          models: [{ name: AGENT_MODEL, deployments: [{ provider: 'bench', model: 'upstream' }] }],
        }),
      );
      return {
        REDIS_URL: redisUrl,
        REDIS_KEY_PREFIX: redisKeyPrefix,
        LLM_GATEWAY_ROUTING_FILE: routingFile,
        AGENT_MODEL,
        AGENT_MODEL_HIGH_PERFORMANCE: AGENT_MODEL,
        AGENT_CONCURRENCY: '1000',
        // BENCH_PIECES_CPU_PROFILE=<file>: the platform writes a V8 CPU profile of the whole run there.
        ...(process.env.BENCH_PIECES_CPU_PROFILE
          ? {
              NODE_OPTIONS: `--require ${path.join(distRoot, 'bench/src/harness/cpu-profile-preload.js')}`,
              FED_BENCH_CPU_PROFILE: path.resolve(process.env.BENCH_PIECES_CPU_PROFILE),
            }
          : {}),
      };
    },
  });
  try {
    const token = await server.signInDemoUser('openid chat:exec');
    const phase = (text: string) => process.stdout.write(`${text}\n`);

    // Warm-up: the first turns compile the path.
    shape = { pieces: 5, pauseMs: 5 };
    await runTurns(server.url, token, { streams: 1, turnsPerStream: 10, spreadMs: 0, piecesPerTurn: 5 });

    /** One stream's turns of the current shape, in the default plain output and in Markdown (nothing held for it). */
    const inBothFormats = async (step: number, what: string, turns: number, pieces: number) => {
      const results: Partial<Record<'plain' | 'markdown', TurnsResult>> = {};
      for (const outputFormat of ['plain', 'markdown'] as const) {
        phase(outputFormat === 'plain' ? `${step}: ${what}` : `${step}b: the same with outputFormat markdown`);
        results[outputFormat] = await runTurns(server.url, token, {
          streams: 1,
          turnsPerStream: turns,
          spreadMs: 0,
          piecesPerTurn: pieces,
          ...(outputFormat === 'markdown' ? { outputFormat } : {}),
        });
      }
      return results as Record<'plain' | 'markdown', TurnsResult>;
    };

    // A model that pauses between pieces longer than the coalescing window (the piece after a pause).
    const oneStream = { pieces: 20, pauseMs: 50, turns: quick ? 5 : 30 };
    shape = oneStream;
    const { plain: one, markdown: oneMarkdown } = await inBothFormats(
      1,
      `one stream, ${oneStream.turns} turns of ${oneStream.pieces} pieces ${oneStream.pauseMs} ms apart`,
      oneStream.turns,
      oneStream.pieces,
    );

    // Steady state: the clients join over one turn's length (as in the soak), so about as many turns start
    // each second as end, and pieces flow at `streams` a second; only pieces after the last join count.
    const many = { streams: quick ? 200 : 1000, pieces: 30, pauseMs: 1000, turns: 2 };
    phase(`2: ${many.streams} streams, ${many.turns} turns each of ${many.pieces} pieces ${many.pauseMs} ms apart`);
    shape = many;
    const crowd = await runTurns(server.url, token, {
      streams: many.streams,
      turnsPerStream: many.turns,
      spreadMs: many.pieces * many.pauseMs,
      piecesPerTurn: many.pieces,
    });

    // A fast model: pieces far closer than the window, where coalescing keeps the events few.
    const fast = { pieces: 200, pauseMs: 2, turns: quick ? 5 : 20 };
    shape = fast;
    const { plain: quickModel, markdown: quickModelMarkdown } = await inBothFormats(
      3,
      `one stream, ${fast.turns} turns of ${fast.pieces} pieces ${fast.pauseMs} ms apart (a fast model)`,
      fast.turns,
      fast.pieces,
    );

    const ms = (microseconds: number) => (microseconds / 1000).toFixed(2);
    const row = (label: string, result: TurnsResult, goalMs?: number): Row => ({
      measure: label,
      'p50 ms': ms(result.latency.p50),
      'p90 ms': ms(result.latency.p90),
      'p99 ms': ms(result.latency.p99),
      'content events / turn': result.contentEventsPerTurn,
      'turns (incomplete)': `${result.turns} (${result.incomplete})`,
      goal: goalMs === undefined ? '' : `p50 < ${goalMs} ms`,
      verdict: goalMs === undefined ? '' : result.latency.p50 < goalMs * 1000 && !result.incomplete ? 'ok' : 'MISSED',
    });
    const rows = [
      row(`1 stream, pieces ${oneStream.pauseMs} ms apart`, one, GOAL.oneStreamP50Ms),
      row(`1 stream, pieces ${oneStream.pauseMs} ms apart, outputFormat markdown`, oneMarkdown, GOAL.oneStreamP50Ms),
      row(`${many.streams} streams, pieces ${many.pauseMs} ms apart`, crowd, GOAL.manyStreamsP50Ms),
      row(`1 stream, fast model (pieces ${fast.pauseMs} ms apart)`, quickModel),
      row(`1 stream, fast model, outputFormat markdown`, quickModelMarkdown),
    ];
    for (const [label, result] of Object.entries({ one, oneMarkdown, crowd, fast: quickModel, quickModelMarkdown })) {
      if (result.incomplete > 0)
        process.stdout.write(`${label}: incomplete turns ${JSON.stringify(result.problems)}\n`);
    }
    printTable(
      'pieces: a model piece to the chat client (all-in-one on PostgreSQL and Redis: gateway, agent runtime, run stream, SSE; outputFormat plain, the default, unless said)',
      rows,
    );
    writeResult(resultsDir, 'pieces', {
      quick,
      one,
      oneMarkdown,
      crowd,
      fast: quickModel,
      fastMarkdown: quickModelMarkdown,
      shapes: { oneStream, many, fast },
    });
  } finally {
    await server.close();
    await upstream.close();
    await deleteRedisKeys(redisUrl, redisKeyPrefix).catch(() => 0);
  }
}

/** The age of a model's piece when the chat client receives it, through the whole all-in-one path. */
export const piecesBenchmark: Benchmark = {
  name: 'pieces',
  description:
    "A model's text piece to the chat client through gateway, agent runtime and SSE: p50/p99 with 1 and 1,000 streams, events per turn under a fast model",
  run: (context) => withScratchDatabase((databaseUrl) => run(context, databaseUrl)),
};
