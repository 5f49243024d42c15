import { testServiceUrls } from '@fed/config';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { Client } from 'pg';
import { startAllInOnePlatform } from '../harness/all-in-one';
import { type LatencyResult, microsecondHistogram, microsecondsSince, summarize } from '../harness/latency';
import { type Row, printTable, writeResult } from '../harness/report';
import { runSql, withScratchDatabase } from '../harness/scratch-database';
import { type Benchmark, type BenchmarkContext } from './benchmark';
import { SEARCH_CORPUS } from './search-corpus';

/** Issue goal: a turn's overhead with 1,000 earlier messages at most twice the overhead with 10. */
const GOAL_RATIO = 2;
const MODEL = 'federation-agent';
const PROMPT = 'What did we decide about the quarterly report?';
/** Earlier messages of the two conversations. */
const HISTORY_SIZES = [10, 1000] as const;
type HistorySize = (typeof HISTORY_SIZES)[number];
/**
 * What the runtime gives the model of a conversation: its newest 40 messages (HISTORY_LIMIT of
 * libs/conversations, turn-ledger.ts); the check below reads it off the model call.
 */
const HISTORY_GIVEN = 40;
/** A user's message is 1-3 sentences (70-250 characters), an answer 4-24 (300-1,800). */
const USER_SENTENCES = { least: 1, most: 3 };
const ANSWER_SENTENCES = { least: 4, most: 24 };

/** The default turn (agent mode: the demo model calls a tool, then answers) and one without tools. */
const MODES = { agent: { agentMode: true }, 'no tools': { agentMode: false } } as const;
type Mode = keyof typeof MODES;

interface Case {
  mode: Mode;
  size: HistorySize;
}
const CASES: Case[] = (Object.keys(MODES) as Mode[]).flatMap((mode) => HISTORY_SIZES.map((size) => ({ mode, size })));
const caseName = ({ mode, size }: Case) => `${mode}, ${size} earlier messages`;

/** A conversation seeded with `size` earlier messages, and the seq of its last one (later rows are a turn's). */
interface Seeded {
  conversationId: string;
  lastSeq: string;
  /** Characters of the messages the model should be given (the newest HISTORY_GIVEN). */
  givenCharacters: number;
}

/** One chat turn, streamed to its end: the conversation it went to and the whole stream; anything but 200 is an error. */
function streamTurn(
  agent: http.Agent,
  base: string,
  token: string,
  body: Record<string, unknown>,
): Promise<{ conversationId: string; text: string }> {
  const url = new URL(`${base}/api/v1/chat/completions`);
  const payload = JSON.stringify({
    model: MODEL,
    stream: true,
    messages: [{ role: 'user', content: PROMPT }],
    ...body,
  });
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          if (response.statusCode !== 200) return reject(new Error(`chat ${response.statusCode}: ${text}`));
          if (!text.includes('data: [DONE]')) return reject(new Error(`the stream did not end with [DONE]: ${text}`));
          resolve({ conversationId: String(response.headers['x-conversation-id'] ?? ''), text });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

/** Deterministic 0..1 numbers (mulberry32), so that every run seeds the same texts. */
export function numbers(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `size` messages, User and AI in turn (the last one an answer), of English sentences of the search corpus. */
function historyTexts(size: number): { senders: string[]; texts: string[] } {
  const sentences = SEARCH_CORPUS.find((language) => language.config === 'english')?.sentences ?? [];
  const next = numbers(size);
  const senders: string[] = [];
  const texts: string[] = [];
  for (let i = 0; i < size; i++) {
    // Counted back from the end, so that the message before the new one is an answer.
    const sender = (size - i) % 2 === 0 ? 'User' : 'AI';
    const { least, most } = sender === 'User' ? USER_SENTENCES : ANSWER_SENTENCES;
    const count = least + Math.floor(next() * (most - least + 1));
    const picked = Array.from({ length: count }, () => sentences[Math.floor(next() * sentences.length)] ?? '');
    senders.push(sender);
    texts.push(picked.join(' '));
  }
  return { senders, texts };
}

/** Who a conversation's rows name as its owner. */
export interface ConversationOwner {
  userId: string;
  tenantId: string | null;
}

/**
 * The demo user as conversation rows name it: a first turn (`body` adds to its request) makes a
 * conversation, whose row says whose the seeded ones must be.
 */
export async function demoUserOwner(
  base: string,
  token: string,
  databaseUrl: string,
  body: Record<string, unknown> = {},
): Promise<ConversationOwner> {
  const agent = new http.Agent({ keepAlive: false });
  try {
    const first = await streamTurn(agent, base, token, body);
    const [owner] = await runSql<{ userId: string; tenantId: string | null }>(
      databaseUrl,
      `SELECT "user_id" AS "userId", "tenant_id" AS "tenantId" FROM "conversations"."conversations" WHERE "id" = $1`,
      [first.conversationId],
    );
    if (!owner) throw new Error(`the first turn's conversation ${first.conversationId} is not stored`);
    return owner;
  } finally {
    agent.destroy();
  }
}

/**
 * A conversation of the owner with these messages (oldest first), ten minutes apart and ending now, written
 * in order (their seq is their order, which is what the runtime reads them by); their ids, oldest first.
 */
export async function insertConversation(
  databaseUrl: string,
  owner: ConversationOwner,
  { title, senders, texts }: { title: string; senders: string[]; texts: string[] },
): Promise<{ conversationId: string; messageIds: string[]; lastSeq: string }> {
  const conversationId = randomUUID();
  const size = texts.length;
  const messageIds = texts.map(() => randomUUID());
  await runSql(
    databaseUrl,
    `INSERT INTO "conversations"."conversations" ("id", "user_id", "tenant_id", "title", "created_at", "updated_at")
     VALUES ($1, $2, $3, $4, now() - $5::int * interval '10 minutes', now())`,
    [conversationId, owner.userId, owner.tenantId, title, size],
  );
  await runSql(
    databaseUrl,
    `INSERT INTO "conversations"."messages"
       ("id", "conversation_id", "user_id", "tenant_id", "sender", "text", "search_config", "created_at", "updated_at")
     SELECT m."id", $1::uuid, $2::text, $3::text, m."sender", m."text", 'english',
            now() - ($6::int - m.n) * interval '10 minutes', now() - ($6::int - m.n) * interval '10 minutes'
       FROM unnest($7::uuid[], $4::text[], $5::text[]) WITH ORDINALITY AS m("id", "sender", "text", n)
      ORDER BY m.n`,
    [conversationId, owner.userId, owner.tenantId, senders, texts, size, messageIds],
  );
  const [written] = await runSql<{ count: number; lastSeq: string; ordered: boolean }>(
    databaseUrl,
    `SELECT count(*)::int AS "count", max("seq")::text AS "lastSeq",
            bool_and("previous" IS NULL OR "previous" < "created_at") AS "ordered"
       FROM (SELECT "seq", "created_at", lag("created_at") OVER (ORDER BY "seq") AS "previous"
               FROM "conversations"."messages" WHERE "conversation_id" = $1) AS "history"`,
    [conversationId],
  );
  if (written?.count !== size || !written.ordered) {
    throw new Error(`the conversation of ${size} messages was not written in order: ${JSON.stringify(written)}`);
  }
  return { conversationId, messageIds, lastSeq: written.lastSeq };
}

/** A conversation of the owner with `size` earlier messages (see insertConversation). */
async function seedConversation(databaseUrl: string, owner: ConversationOwner, size: number): Promise<Seeded> {
  const { senders, texts } = historyTexts(size);
  const { conversationId, lastSeq } = await insertConversation(databaseUrl, owner, {
    title: `${size} messages`,
    senders,
    texts,
  });
  const givenCharacters = texts.slice(-HISTORY_GIVEN).reduce((sum, text) => sum + text.length, 0);
  return { conversationId, lastSeq, givenCharacters };
}

/** Removes what a measured turn added (its two messages and their tasks), so every turn sees the seeded history. */
async function forgetTurn(database: Client, seeded: Seeded): Promise<void> {
  await database.query(
    `WITH "added" AS (
       DELETE FROM "conversations"."messages" WHERE "conversation_id" = $1::uuid AND "seq" > $2::bigint RETURNING "id"
     )
     DELETE FROM "conversations"."tasks" WHERE "conversation_id" = $1 AND "message_id" IN (SELECT "id" FROM "added")`,
    [seeded.conversationId, seeded.lastSeq],
  );
}

/**
 * The input tokens of the first model call the gateway logged from `since` on, once its row lands (the
 * log is written in batches); the demo model counts a quarter of the prompt's characters. Undefined
 * after `waitMs`.
 */
async function loggedInputTokens(databaseUrl: string, since: Date, waitMs: number): Promise<number | undefined> {
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    const rows = await runSql<{ input_tokens: number | null }>(
      databaseUrl,
      `SELECT "input_tokens" FROM "audit"."llm_gateway_logs" WHERE "created_at" >= $1 ORDER BY "created_at" LIMIT 1`,
      [since],
    );
    if (rows[0]) return rows[0].input_tokens ?? undefined;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return undefined;
}

async function run({ distRoot, resultsDir, quick }: BenchmarkContext, databaseUrl: string): Promise<void> {
  const rounds = quick ? 30 : 300;
  const warmup = quick ? 5 : 30;
  const server = await startAllInOnePlatform({
    distRoot,
    databaseUrl,
    name: 'turn-history',
    env: {
      REDIS_URL: testServiceUrls().redisUrl,
      REDIS_KEY_PREFIX: `bench:turn-history:${randomUUID().slice(0, 8)}:`,
    },
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const database = new Client({ connectionString: databaseUrl });
  await database.connect();
  try {
    const token = await server.signInDemoUser('openid chat:exec');

    const owner = await demoUserOwner(server.url, token, databaseUrl);
    const seeded = {} as Record<HistorySize, Seeded>;
    for (const size of HISTORY_SIZES) seeded[size] = await seedConversation(databaseUrl, owner, size);
    await runSql(databaseUrl, 'VACUUM ANALYZE "conversations"."messages"');

    const turn = async ({ mode, size }: Case) => {
      const started = performance.now();
      await streamTurn(agent, server.url, token, { conversationId: seeded[size].conversationId, ...MODES[mode] });
      const elapsed = microsecondsSince(started);
      await forgetTurn(database, seeded[size]);
      return elapsed;
    };

    // What reached the model: one turn without tools per conversation, its model call's logged input tokens.
    const promptTokens = {} as Record<HistorySize, number | undefined>;
    for (const size of HISTORY_SIZES) {
      const since = new Date();
      await turn({ mode: 'no tools', size });
      promptTokens[size] = await loggedInputTokens(databaseUrl, since, 5000);
    }

    for (let round = 0; round < warmup; round++) for (const c of CASES) await turn(c);
    const histograms = new Map(CASES.map((c) => [caseName(c), microsecondHistogram(60)]));
    for (let round = 0; round < rounds; round++) {
      // A rotating order, so that drift and warm caches touch every case alike.
      for (let i = 0; i < CASES.length; i++) {
        const c = CASES[(round + i) % CASES.length] as Case;
        const elapsed = await turn(c);
        histograms.get(caseName(c))?.recordValue(elapsed);
      }
      // The removed rows' index entries would otherwise pile up in front of the history's walk.
      if ((round + 1) % 50 === 0) {
        await database.query('VACUUM "conversations"."messages", "conversations"."tasks"');
      }
    }
    const latency: Record<string, LatencyResult> = {};
    for (const [name, histogram] of histograms) latency[name] = summarize(histogram, rounds);

    const ms = (microseconds: number) => (microseconds / 1000).toFixed(2);
    const rows: Row[] = CASES.map((c) => {
      const figures = latency[caseName(c)] as LatencyResult;
      const fewest = latency[caseName({ mode: c.mode, size: HISTORY_SIZES[0] })] as LatencyResult;
      const ratio = { p50: figures.p50 / fewest.p50, p99: figures.p99 / fewest.p99 };
      const baseline = c.size === HISTORY_SIZES[0];
      return {
        turn: caseName(c),
        'p50 ms': ms(figures.p50),
        'p90 ms': ms(figures.p90),
        'p99 ms': ms(figures.p99),
        'added p50 ms': baseline ? '' : ms(figures.p50 - fewest.p50),
        'p50 ratio': baseline ? '' : `${ratio.p50.toFixed(2)}x`,
        'p99 ratio': baseline ? '' : `${ratio.p99.toFixed(2)}x`,
        verdict: baseline ? '' : ratio.p50 <= GOAL_RATIO && ratio.p99 <= GOAL_RATIO ? 'ok' : 'MISSED',
      };
    });
    printTable(
      `a whole chat turn (SSE to [DONE], the demo model answering at once) in a conversation with ${HISTORY_SIZES.join(' and ')} earlier messages (all-in-one on PostgreSQL and Redis, ${rounds} turns each, one at a time in rotating order; goal: ratio <= ${GOAL_RATIO}x)`,
      rows,
    );
    printTable(
      `what the model was given (one turn without tools each; the demo model counts a quarter of the prompt's characters)`,
      HISTORY_SIZES.map((size) => ({
        conversation: `${size} earlier messages`,
        'messages it should be given': Math.min(size, HISTORY_GIVEN),
        'their characters': seeded[size].givenCharacters,
        'input tokens logged': promptTokens[size] ?? '-',
      })),
    );
    const file = writeResult(resultsDir, 'turn-history', {
      quick,
      rounds,
      latencyMicroseconds: latency,
      promptTokens,
      givenCharacters: Object.fromEntries(HISTORY_SIZES.map((size) => [size, seeded[size].givenCharacters])),
      table: rows,
    });
    process.stdout.write(`written ${file}\n`);
  } finally {
    await database.end();
    agent.destroy();
    await server.close();
  }
}

/**
 * A chat turn's time (the demo model answers at once, so the time is the platform's own) in a
 * conversation with 10 and with 1,000 earlier messages: what the history costs a turn must stay bounded.
 */
export const turnHistoryBenchmark: Benchmark = {
  name: 'turn-history',
  description: 'a chat turn (demo model) with 10 and with 1,000 earlier messages in its conversation (ratio <= 2x)',
  run: (context) => withScratchDatabase((databaseUrl) => run(context, databaseUrl)),
};
