import { JwksServer, TestTokenIssuer } from '@fed/auth/testing';
import { type Bus, createBus } from '@fed/bus';
import { testServiceUrls } from '@fed/config';
import { contentChunk } from '@fed/contracts';
import { runMigrations } from '@fed/persistence';
import { deleteRedisKeys } from '@fed/testing';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ChildServer, freePort, processUsage, startChildServer } from '../harness/child-server';
import { type LatencyResult, microsecondHistogram, summarize } from '../harness/latency';
import { type Row, printTable, writeResult } from '../harness/report';
import { withScratchDatabase } from '../harness/scratch-database';
import { type SseHandlers, type SseStream, openSseStream } from '../harness/sse-stream';
import { type Benchmark, type BenchmarkContext } from './benchmark';

/** Design budgets of chat-service (document 2): chunk relay latency, memory of idle streams. */
const BUDGET = { relayP50Ms: 2, relayP99Ms: 10, rssMiB: 1024 };
const MODEL = 'federation-agent';
const RELAY_STREAMS = 1000;
/** Chunks per second over all streams: one per stream per second. */
const RELAY_RATE = 1000;
const HEARTBEAT_SECONDS = 5;
/** chat-service's V8 options as deployed (deploy/k8s/base/chat-service.yaml, docker-compose.yml). */
export const CHAT_NODE_OPTIONS = process.env.BENCH_CHAT_NODE_OPTIONS ?? '--max-semi-space-size=16';
const IDLE_WAIT_SECONDS = 12;
/** Streams opened at once, and users they are spread over (each POST starts a new conversation). */
const OPEN_CONCURRENCY = 50;
const USERS = 50;

const ms = (microseconds: number) => (microseconds / 1000).toFixed(2);
const mib = (kib: number) => Math.round(kib / 1024);
const verdict = (pass: boolean) => (pass ? 'ok' : 'MISSED');
const openFiles = (pid: number | 'self') => readdirSync(`/proc/${pid}/fd`).length;

interface Turn {
  runId: string;
  stream: SseStream;
}

/** The chat streams of one phase: opened with bounded concurrency, all closed by `closeAll`. */
class ChatStreams {
  readonly turns: Turn[] = [];
  /** Streams the server ended or broke while open (none should). */
  broken = 0;
  private closing = false;
  private readonly agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

  constructor(
    private readonly chatUrl: string,
    private readonly tokens: string[],
  ) {}

  /** Opens `count` streams, `OPEN_CONCURRENCY` at a time; `handlers(i)` reads the i-th. */
  async open(count: number, handlers: (index: number) => SseHandlers): Promise<void> {
    const url = new URL(`${this.chatUrl}/api/v1/chat/completions`);
    const body = JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    let next = 0;
    let failed = false;
    const worker = async () => {
      while (next < count && !failed && !this.closing) {
        const index = next++;
        const headers = {
          'Content-Type': 'application/json',
          Authorization: `Bearer ${this.tokens[index % this.tokens.length]}`,
        };
        try {
          const stream = await openSseStream(this.agent, url, { method: 'POST', headers, body }, handlers(index));
          this.turns[index] = { runId: String(stream.headers['x-message-id']), stream };
          if (this.closing) stream.close(); // opened while the phase was being torn down
          void stream.closed.then(() => {
            if (!this.closing) this.broken++;
          });
        } catch (error) {
          failed = true;
          const emfile = (error as NodeJS.ErrnoException).code === 'EMFILE' ? ' (EMFILE: too many open files)' : '';
          throw new Error(`opening stream ${index} failed${emfile}`, { cause: error });
        }
      }
    };
    await Promise.all(Array.from({ length: OPEN_CONCURRENCY }, worker));
  }

  async closeAll(): Promise<void> {
    this.closing = true;
    for (const turn of this.turns) turn?.stream.close();
    await Promise.all(this.turns.map((turn) => turn?.stream.closed));
    this.agent.destroy();
  }
}

/** Polls `done` every 50 ms until it holds or `timeoutMs` passes; says which. */
async function waitFor(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

interface ChunkDelta {
  role?: string;
  content?: string;
}
const deltaOf = (data: string) => (JSON.parse(data) as { choices: { delta: ChunkDelta }[] }).choices[0]?.delta;

/**
 * Part 1: RELAY_STREAMS open streams, chunks appended round robin at RELAY_RATE, evenly spaced, each
 * carrying its `performance.now()`; the relay latency is receive time minus that.
 */
async function measureRelay(streams: ChatStreams, bus: Bus, seconds: number) {
  const histogram = microsecondHistogram(60);
  let roles = 0;
  let received = 0;
  const openStarted = performance.now();
  await streams.open(RELAY_STREAMS, () => ({
    onEvent: ({ data }) => {
      const at = performance.now();
      const delta = deltaOf(data);
      if (delta?.role) roles++;
      else if (delta?.content !== undefined) {
        histogram.recordValue(Math.max(1, Math.round((at - Number(delta.content)) * 1000)));
        received++;
      }
    },
  }));
  if (!(await waitFor(() => roles === RELAY_STREAMS, 10_000))) throw new Error(`${roles} role chunks`);
  const openSeconds = (performance.now() - openStarted) / 1000;

  const total = RELAY_RATE * seconds;
  let appended = 0;
  let appendErrors = 0;
  const pending: Promise<void>[] = [];
  const started = performance.now();
  for (let k = 0; k < total; k++) {
    const wait = started + (k * 1000) / RELAY_RATE - performance.now();
    if (wait > 0) await sleep(wait);
    const chunk = contentChunk(MODEL, { content: String(performance.now()) });
    pending.push(
      bus.runStream.append((streams.turns[k % RELAY_STREAMS] as Turn).runId, JSON.stringify(chunk)).then(
        () => void appended++,
        () => void appendErrors++,
      ),
    );
  }
  await Promise.all(pending);
  const appendSeconds = (performance.now() - started) / 1000;
  await waitFor(() => received >= appended, 5000);
  return {
    streams: RELAY_STREAMS,
    openSeconds,
    appended,
    appendErrors,
    received,
    broken: streams.broken,
    chunksPerSecond: Math.round(appended / appendSeconds),
    latency: summarize(histogram, received),
  };
}

/**
 * With chat-service started under bench/src/harness/heap-snapshot-preload (NODE_OPTIONS=--require it, and
 * FED_BENCH_MEMORY_SPLIT or FED_BENCH_HEAP_SNAPSHOT set to a file prefix), asks it for its memory split while
 * the idle streams are open and waits until it is written. Nothing otherwise.
 */
async function splitMemory(chat: ChildServer): Promise<void> {
  const prefix = process.env.FED_BENCH_HEAP_SNAPSHOT ?? process.env.FED_BENCH_MEMORY_SPLIT;
  if (!prefix || !process.env.NODE_OPTIONS?.includes('heap-snapshot-preload')) return;
  const written = `${prefix}-1.json`;
  process.kill(chat.pid, 'SIGUSR2');
  if (!(await waitFor(() => existsSync(written), 600_000))) throw new Error(`no memory split in ${written}`);
  process.stdout.write(`memory split written to ${written}\n`);
}

/** Part 2: `count` idle streams, their heartbeats over IDLE_WAIT_SECONDS, chat-service's memory. */
async function measureIdle(streams: ChatStreams, chat: ChildServer, count: number) {
  const before = processUsage(chat.pid);
  let roles = 0;
  const heartbeats = new Uint16Array(count);
  const openStarted = performance.now();
  await streams.open(count, (index) => ({
    onEvent: ({ data }) => {
      if (deltaOf(data)?.role) roles++;
    },
    onComment: (comment) => {
      if (comment === 'heartbeat') heartbeats[index]++;
    },
  }));
  if (!(await waitFor(() => roles === count, 30_000))) throw new Error(`${roles} of ${count} role chunks`);
  const openSeconds = (performance.now() - openStarted) / 1000;
  const opened = processUsage(chat.pid);
  heartbeats.fill(0);
  await sleep(IDLE_WAIT_SECONDS * 1000);
  const idle = processUsage(chat.pid);
  await splitMemory(chat);
  const total = heartbeats.reduce((sum, n) => sum + n, 0);
  return {
    streams: count,
    openSeconds,
    rssBeforeMiB: mib(before.rssKiB),
    rssOpenedMiB: mib(opened.rssKiB),
    rssIdleMiB: mib(idle.rssKiB),
    peakMiB: mib(idle.peakKiB),
    /** chat-service's CPU use while the streams were idle, in % of one core. */
    idleCpuPercent: Math.round(((idle.cpuSeconds - opened.cpuSeconds) / IDLE_WAIT_SECONDS) * 100),
    perStreamKiB: Math.round((idle.rssKiB - before.rssKiB) / count),
    heartbeats: total,
    heartbeatsPerStream: { mean: total / count, min: Math.min(...heartbeats), max: Math.max(...heartbeats) },
    openFiles: { chatService: openFiles(chat.pid), bench: openFiles('self') },
    broken: streams.broken,
  };
}

async function run({ distRoot, resultsDir, quick }: BenchmarkContext, databaseUrl: string): Promise<void> {
  const startedAt = performance.now();
  const relaySeconds = quick ? 3 : 10;
  const idleStreams = quick ? 2000 : 10_000;
  const redisUrl = testServiceUrls().redisUrl;
  const redisKeyPrefix = `bench:chat:${randomUUID().slice(0, 8)}:`;
  const issuer = await TestTokenIssuer.create();
  const jwks = await JwksServer.start(() => issuer.jwks());
  const bus = createBus({ redisUrl, keyPrefix: redisKeyPrefix });
  const cleanups: (() => Promise<unknown>)[] = [];
  let tokens: string[] = [];
  // BENCH_CHAT_CPU_PROFILE=<prefix>: each chat-service writes a V8 CPU profile, <prefix>-<phase>.cpuprofile.
  const profile = process.env.BENCH_CHAT_CPU_PROFILE;
  const startChat = async (phase: string) => {
    const port = await freePort();
    const server = await startChildServer({
      script: path.join(distRoot, 'apps/chat-service/src/main.js'),
      env: {
        DATABASE_URL: databaseUrl,
        REDIS_URL: redisUrl,
        REDIS_KEY_PREFIX: redisKeyPrefix,
        HOST: '127.0.0.1',
        PORT: String(port),
        AUTH_URL: issuer.issuer.replace(/\/realms\/federation$/, ''),
        AUTH_JWKS_URL: jwks.url,
        CHAT_HEARTBEAT_SECONDS: String(HEARTBEAT_SECONDS),
        LOG_LEVEL: 'warn',
        NODE_OPTIONS: [
          CHAT_NODE_OPTIONS,
          process.env.NODE_OPTIONS ?? '',
          profile ? `--require ${path.join(distRoot, 'bench/src/harness/cpu-profile-preload.js')}` : '',
        ]
          .filter(Boolean)
          .join(' '),
        ...(profile ? { FED_BENCH_CPU_PROFILE: path.resolve(`${profile}-${phase}.cpuprofile`) } : {}),
      },
      port,
      readyPath: '/readyz',
      readyTimeoutMs: 60_000,
    });
    cleanups.push(() => server.stop());
    return server;
  };
  const newStreams = (chat: ChildServer) => {
    const streams = new ChatStreams(chat.url, tokens);
    cleanups.push(() => streams.closeAll());
    return streams;
  };

  try {
    await runMigrations(databaseUrl);
    tokens = await Promise.all(Array.from({ length: USERS }, () => issuer.mint({ scope: 'chat:exec' })));
    const phase = (text: string) => process.stdout.write(`${text}\n`);

    phase(`1: ${RELAY_STREAMS} open streams, ${RELAY_RATE} chunks/s round robin for ${relaySeconds} s`);
    let chat = await startChat('relay');
    let streams = newStreams(chat);
    const relay = await measureRelay(streams, bus, relaySeconds);
    await streams.closeAll();
    await chat.stop();

    phase(`2: ${idleStreams} idle streams in a fresh chat-service, heartbeat ${HEARTBEAT_SECONDS} s`);
    chat = await startChat('idle');
    streams = newStreams(chat);
    const idle = await measureIdle(streams, chat, idleStreams);
    await streams.closeAll();

    const lat: LatencyResult = relay.latency;
    const noneLost = relay.received === relay.appended && relay.appendErrors === 0 && relay.broken === 0;
    const heartbeatsOk = idle.heartbeatsPerStream.min >= 2 && idle.heartbeatsPerStream.max <= 3;
    const budgets = {
      relayP50: lat.p50 < BUDGET.relayP50Ms * 1000,
      relayP99: lat.p99 < BUDGET.relayP99Ms * 1000,
      noneLost,
      rss: idle.rssIdleMiB < BUDGET.rssMiB,
      heartbeats: heartbeatsOk && idle.broken === 0,
    };
    const idleLabel = `${idle.streams.toLocaleString('en')} idle streams${quick ? ' (--quick; full run 10,000)' : ''}`;
    const rows: Row[] = [
      ...(
        [
          ['p50', lat.p50, `< ${BUDGET.relayP50Ms} ms`, budgets.relayP50],
          ['p90', lat.p90, '', undefined],
          ['p99', lat.p99, `< ${BUDGET.relayP99Ms} ms`, budgets.relayP99],
          ['max', lat.max, '', undefined],
        ] as const
      ).map(([percentile, value, budget, pass]) => ({
        measure: `relay ${percentile} ms (${RELAY_STREAMS} streams, ${relay.chunksPerSecond} chunks/s)`,
        value: ms(value),
        budget,
        verdict: pass === undefined ? '' : verdict(pass),
      })),
      {
        measure: 'chunks received / appended',
        value: `${relay.received} / ${relay.appended}`,
        budget: 'equal, no error',
        verdict: verdict(noneLost),
      },
      { measure: `RSS before opening, MiB`, value: idle.rssBeforeMiB, budget: '', verdict: '' },
      {
        measure: `RSS with ${idleLabel}, MiB`,
        value: `${idle.rssIdleMiB} (peak ${idle.peakMiB})`,
        budget: `< ${BUDGET.rssMiB} MiB`,
        verdict: verdict(budgets.rss),
      },
      { measure: 'per stream, KiB', value: idle.perStreamKiB, budget: '', verdict: '' },
      {
        measure: `heartbeats in ${IDLE_WAIT_SECONDS} s (every ${HEARTBEAT_SECONDS} s)`,
        value: `${idle.heartbeats} (${idle.heartbeatsPerStream.min} to ${idle.heartbeatsPerStream.max} per stream)`,
        budget: '2 to 3 per stream',
        verdict: verdict(budgets.heartbeats),
      },
      {
        measure: `chat-service CPU while idle, % of a core`,
        value: idle.idleCpuPercent,
        budget: '',
        verdict: '',
      },
      {
        measure: 'open files: chat-service / bench',
        value: `${idle.openFiles.chatService} / ${idle.openFiles.bench}`,
        budget: '',
        verdict: '',
      },
      {
        measure: 'streams opened per second (relay / idle)',
        value: `${Math.round(relay.streams / relay.openSeconds)} / ${Math.round(idle.streams / idle.openSeconds)}`,
        budget: '',
        verdict: '',
      },
    ];
    const elapsedSeconds = Math.round((performance.now() - startedAt) / 100) / 10;
    printTable('chat: chat-service SSE relay (run stream on Redis, chunks appended by the bench)', rows);
    process.stdout.write(`took ${elapsedSeconds} s\n`);
    const file = writeResult(resultsDir, 'chat', {
      quick,
      elapsedSeconds,
      settings: {
        relay: { streams: RELAY_STREAMS, rate: RELAY_RATE, seconds: relaySeconds },
        idle: { streams: idleStreams, heartbeatSeconds: HEARTBEAT_SECONDS, waitSeconds: IDLE_WAIT_SECONDS },
        openConcurrency: OPEN_CONCURRENCY,
        users: USERS,
        budget: BUDGET,
      },
      relay,
      idle,
      budgets,
      table: rows,
    });
    process.stdout.write(`written ${file}\n`);
  } finally {
    // Sockets first (so chat-service drains at once), then the servers, then what they used.
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    await bus.close().catch(() => undefined);
    await jwks.close();
    await issuer.close();
    await deleteRedisKeys(redisUrl, redisKeyPrefix).catch(() => 0);
  }
}

/**
 * chat-service's SSE relay as deployed (its own process, PostgreSQL, Redis), the bench playing the
 * agent runtime: chunk latency from append to client with 1,000 open streams, and the memory and
 * heartbeats of 10,000 idle streams.
 */
export const chatBenchmark: Benchmark = {
  name: 'chat',
  description:
    'POST /api/v1/chat/completions streams on chat-service: append-to-client chunk latency with 1,000 open streams, memory of 10,000 idle ones',
  run: (context) => withScratchDatabase((databaseUrl) => run(context, databaseUrl)),
};
