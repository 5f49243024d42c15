import { testServiceUrls, variables } from '@fed/config';
import { apiKeysServiceFor, gatewayEntities } from '@fed/gateway';
import { createDataSource, dataSourceOptions, runMigrations } from '@fed/persistence';
import { deleteRedisKeys } from '@fed/testing';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startAllInOnePlatform } from '../harness/all-in-one';
import { type ChildServer, freePort, startChildServer } from '../harness/child-server';

/** The V8 options the gateway is deployed with (deploy/k8s/base/llm-gateway.yaml, compose). */
export const GATEWAY_NODE_OPTIONS = process.env.BENCH_GATEWAY_NODE_OPTIONS ?? '--max-semi-space-size=64';
/**
 * Worker processes of the gateway, as on a single host with this machine's two cores (compose sets
 * LLM_GATEWAY_WORKERS=2). D measures one process as well (a Kubernetes pod, which scales by replicas).
 */
export const GATEWAY_WORKERS = Number(process.env.BENCH_GATEWAY_WORKERS ?? 2);
import { type ClosedLoopResult } from '../harness/closed-loop';
import { inGeneratorProcess } from '../harness/generator-process';
import { type LatencyResult } from '../harness/latency';
import { type OpenLoopResult } from '../harness/open-loop';
import { type Row, printTable, writeResult } from '../harness/report';
import { runSql, withScratchDatabase } from '../harness/scratch-database';
import { type DrainedThroughputResult, measureSaturatedDrained } from '../harness/wrk-drained';
import { type Benchmark, type BenchmarkContext } from './benchmark';

/**
 * Design budgets of the gateway (spec document 3), in microseconds. They are absolute (decided): the
 * ratio of the gateway's added latency to the bare proxy's is reported beside them, not a gate.
 */
const BUDGET = {
  c1AddedP50: 500,
  c1AddedP99: 1500,
  ttftAddedP50: 1000,
  openLoopAddedP99: 5000,
};
const OPEN_LOOP_RATE = 500;
/** The gateway's log flush interval as deployed (LLM_GATEWAY_LOG_FLUSH_MS's default). */
export const LOG_FLUSH_MS = Number(
  variables.find((variable) => variable.name === 'LLM_GATEWAY_LOG_FLUSH_MS')?.defaultFor('llm-gateway'),
);
/**
 * At concurrency 1 the targets take turns (round robin), so drifts of the machine hit all alike. A
 * turn measures two flush intervals after one unmeasured, then idles for one: the gateway is measured
 * with its log flushes at their steady size and rate, and its last flush of a turn (the database's
 * work on the shared cores) lands in the pause instead of in the next target's turn.
 */
export const C1_TURN = { sliceMs: 2 * LOG_FLUSH_MS, prerollMs: LOG_FLUSH_MS, settleMs: LOG_FLUSH_MS + 250 };
const OPEN_LOOP_SLICE_SECONDS = 2;
const SATURATED_CONNECTIONS = 100;
const SLOW_UPSTREAM_MS = 20;

type TargetName = 'direct' | 'proxy' | 'gateway';
const TARGETS: readonly TargetName[] = ['direct', 'proxy', 'gateway'];
type PerTarget<T> = Record<TargetName, T>;

interface Target {
  url: string;
  model: string;
}

interface LogCheck {
  /** Gateway requests the benchmark sent, and of those answered 2xx (its own count, every phase). */
  sent: number;
  answered2xx: number;
  /**
   * Requests still in flight when a generator that does not drain stopped (autocannon, when wrk is
   * missing): the gateway may have answered them or seen the client leave; either way each has a row.
   */
  unread: number;
  /** Rows in audit.llm_gateway_logs a flush interval and a second after the last request, and after the gateway stopped. */
  rowsBeforeStop: number;
  rows: number;
  rows2xx: number;
  /** 2xx rows whose usage is not `reported` or has no input tokens. */
  rows2xxWithoutUsage: number;
  /** Rows of any status whose usage is not `reported`. */
  rowsNotReported: number;
  pass: boolean;
}

const chatBody = (model: string, stream: boolean) =>
  JSON.stringify({
    model,
    messages: [{ role: 'user', content: 'Hello, benchmark' }],
    ...(stream ? { stream: true } : {}),
  });

/** The environment of an llm-gateway process under benchmark (its own settings come on top). */
export function gatewayEnv(options: {
  databaseUrl: string;
  redisUrl: string;
  redisKeyPrefix: string;
  port: number;
  routingFile: string;
}): Record<string, string> {
  return {
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redisUrl,
    REDIS_KEY_PREFIX: options.redisKeyPrefix,
    HOST: '127.0.0.1',
    PORT: String(options.port),
    LLM_GATEWAY_ROUTING_FILE: options.routingFile,
    LLM_GATEWAY_LOG_FLUSH_MS: String(LOG_FLUSH_MS),
    LOG_LEVEL: 'warn',
    AUTH_URL: 'http://127.0.0.1:9',
  };
}

const added = (value: number, base: number) => value - base;
const signed = (value: number) => (value >= 0 ? `+${value}` : String(value));
const times = (ratio: number) => (Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : 'n/a');
/** Gateway-added over proxy-added; meaningless (NaN) when the proxy added nothing measurable. */
const addedRatio = (gatewayAdded: number, proxyAdded: number) => (proxyAdded > 0 ? gatewayAdded / proxyAdded : NaN);

/** One stage of the comparison: three figures, what the proxy and the gateway add, a budget. */
function latencyRow(
  measure: string,
  values: PerTarget<number>,
  budget?: { text: string; pass: (gatewayAdded: number, ratio: number) => boolean },
): Row {
  const proxyAdded = added(values.proxy, values.direct);
  const gatewayAdded = added(values.gateway, values.direct);
  const ratio = addedRatio(gatewayAdded, proxyAdded);
  return {
    measure,
    direct: values.direct,
    'bare proxy': values.proxy,
    gateway: values.gateway,
    'proxy added': signed(proxyAdded),
    'gateway added': signed(gatewayAdded),
    'gw/proxy added': times(ratio),
    budget: budget?.text ?? '',
    verdict: budget ? (budget.pass(gatewayAdded, ratio) ? 'ok' : 'MISSED') : '',
  };
}

const pick = <T, U>(results: PerTarget<T>, figure: (result: T) => U): PerTarget<U> => ({
  direct: figure(results.direct),
  proxy: figure(results.proxy),
  gateway: figure(results.gateway),
});

type Budget = { text: string; pass: (gatewayAdded: number, ratio: number) => boolean };
const PERCENTILES = [
  ['p50', (r: LatencyResult) => r.p50],
  ['p99', (r: LatencyResult) => r.p99],
  ['p99.9', (r: LatencyResult) => r.p999],
] as const;
type Percentile = (typeof PERCENTILES)[number][0];

/** A row per percentile (the first `count`), each with its budget if it has one. */
function latencyRows(
  label: string,
  results: PerTarget<LatencyResult>,
  budgets: Partial<Record<Percentile, Budget>> = {},
  count: number = PERCENTILES.length,
): Row[] {
  return PERCENTILES.slice(0, count).map(([percentile, figure]) =>
    latencyRow(`${label} ${percentile} µs`, pick(results, figure), budgets[percentile]),
  );
}

/** Added latency (target minus direct), in microseconds, at p50, p99 and p99.9. */
function addedFigures(results: PerTarget<LatencyResult>) {
  const of = (target: TargetName) => ({
    p50: added(results[target].p50, results.direct.p50),
    p99: added(results[target].p99, results.direct.p99),
    p999: added(results[target].p999, results.direct.p999),
  });
  const proxy = of('proxy');
  const gateway = of('gateway');
  return {
    proxy,
    gateway,
    gatewayOverProxy: {
      p50: addedRatio(gateway.p50, proxy.p50),
      p99: addedRatio(gateway.p99, proxy.p99),
      p999: addedRatio(gateway.p999, proxy.p999),
    },
  };
}

interface AllInOneResult {
  plain: { direct: LatencyResult; platform: LatencyResult };
  timeToFirstToken: { direct: LatencyResult; platform: LatencyResult };
}

/**
 * Concurrency 1 through the all-in-one platform's gateway (`/llm/v1` of `apps/platform`) against the
 * mock upstream called directly, in turns as in A and B: plain, then streamed to the first token.
 */
async function measureAllInOne(options: {
  distRoot: string;
  databaseUrl: string;
  routingFile: string;
  direct: Target;
  c1: { durationMs: number; warmupMs: number };
  request: (target: Target, stream: boolean) => { method: 'POST'; headers: Record<string, string>; body: string };
}): Promise<AllInOneResult> {
  const platform = await startAllInOnePlatform({
    distRoot: options.distRoot,
    databaseUrl: options.databaseUrl,
    name: 'gateway',
    env: { LLM_GATEWAY_ROUTING_FILE: options.routingFile, LLM_GATEWAY_LOG_FLUSH_MS: String(LOG_FLUSH_MS) },
  });
  try {
    const platformTarget: Target = { url: `${platform.url}/llm/v1/chat/completions`, model: 'bench-model' };
    const loops = async (stream: boolean) => {
      const [direct, through] = (await inGeneratorProcess(
        'closedLoops',
        [options.direct, platformTarget].map((target) => ({
          url: target.url,
          request: options.request(target, stream),
        })),
        { ...options.c1, ...C1_TURN, firstContent: stream },
      )) as [ClosedLoopResult, ClosedLoopResult];
      return { direct, through };
    };
    const plain = await loops(false);
    const streamed = await loops(true);
    return {
      plain: { direct: plain.direct.latency, platform: plain.through.latency },
      timeToFirstToken: {
        direct: streamed.direct.firstContent as LatencyResult,
        platform: streamed.through.firstContent as LatencyResult,
      },
    };
  } finally {
    await platform.close();
  }
}

/** The all-in-one rows: what the platform's gateway adds to the upstream called directly. */
function allInOneRows(result: AllInOneResult): Row[] {
  const row = (measure: string, direct: number, platform: number, budget?: number): Row => ({
    measure,
    direct,
    'bare proxy': '',
    gateway: platform,
    'proxy added': '',
    'gateway added': signed(added(platform, direct)),
    'gw/proxy added': '',
    budget: budget === undefined ? '' : `< ${budget} µs`,
    verdict: budget === undefined ? '' : added(platform, direct) < budget ? 'ok' : 'MISSED',
  });
  const { plain, timeToFirstToken: ttft } = result;
  return [
    row('E all-in-one c1 plain p50 µs', plain.direct.p50, plain.platform.p50, BUDGET.c1AddedP50),
    row('E all-in-one c1 plain p99 µs', plain.direct.p99, plain.platform.p99, BUDGET.c1AddedP99),
    row('E all-in-one stream TTFT p50 µs', ttft.direct.p50, ttft.platform.p50, BUDGET.ttftAddedP50),
    row('E all-in-one stream TTFT p99 µs', ttft.direct.p99, ttft.platform.p99),
  ];
}

async function waitUntilAnswers(url: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function createKey(databaseUrl: string): Promise<string> {
  const dataSource = await createDataSource(
    dataSourceOptions({ url: databaseUrl, poolSize: 1, applicationName: 'fed-bench', entities: gatewayEntities }),
  );
  try {
    // Limits far above what the benchmark reaches: the limit check (one Redis round trip) runs on
    // every request, as in production, without ever refusing one.
    const { apiKey } = await apiKeysServiceFor(dataSource, { keyPrefix: 'fed_' }).create({
      name: 'bench',
      rpmLimit: 10_000_000,
      tpmLimit: 2_000_000_000,
      dailyBudgetUsd: 1_000_000,
    });
    return apiKey;
  } finally {
    await dataSource.destroy();
  }
}

async function countLogRows(databaseUrl: string) {
  const [row] = await runSql<{
    rows: number;
    rows2xx: number;
    rows2xxWithoutUsage: number;
    rowsNotReported: number;
  }>(
    databaseUrl,
    `SELECT count(*)::int AS "rows",
            count(*) FILTER (WHERE http_status BETWEEN 200 AND 299)::int AS "rows2xx",
            count(*) FILTER (WHERE http_status BETWEEN 200 AND 299
              AND (usage_status IS DISTINCT FROM 'reported' OR coalesce(input_tokens, 0) <= 0))::int AS "rows2xxWithoutUsage",
            count(*) FILTER (WHERE usage_status IS DISTINCT FROM 'reported')::int AS "rowsNotReported"
       FROM "audit"."llm_gateway_logs"`,
  );
  if (!row) throw new Error('no count from audit.llm_gateway_logs');
  return row;
}

async function run({ distRoot, resultsDir, quick }: BenchmarkContext, databaseUrl: string): Promise<void> {
  const startedAt = performance.now();
  const c1 = quick ? { durationMs: 2000, warmupMs: 500 } : { durationMs: 8000, warmupMs: 2000 };
  const openLoopSeconds = quick ? 3 : 10;
  const saturatedSeconds = quick ? 3 : 10;
  const saturatedWarmupSeconds = quick ? 1 : 2;
  const redisUrl = testServiceUrls().redisUrl;
  const redisKeyPrefix = `bench:gw:${randomUUID().slice(0, 8)}:`;
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'fed-bench-gateway-'));
  const servers: ChildServer[] = [];
  const start = async (options: Parameters<typeof startChildServer>[0]) => {
    const server = await startChildServer(options);
    servers.push(server);
    return server;
  };

  try {
    await runMigrations(databaseUrl);
    const apiKey = await createKey(databaseUrl);

    const upstreamScript = path.join(distRoot, 'libs/testing/src/model-upstream/main.js');
    const startUpstream = async (latencyMs: number) => {
      const port = await freePort();
      return start({
        script: upstreamScript,
        args: ['--port', String(port), '--latency-ms', String(latencyMs)],
        port,
        readyPath: '/v1/models',
      });
    };
    const fastUpstream = await startUpstream(0);
    const slowUpstream = await startUpstream(SLOW_UPSTREAM_MS);
    // One proxy process (as one gateway process) with a listener per upstream.
    const fastProxyPort = await freePort();
    let slowProxyPort = await freePort();
    while (slowProxyPort === fastProxyPort) slowProxyPort = await freePort();
    const fastProxy = await start({
      script: path.join(distRoot, 'bench/src/servers/bare-proxy.js'),
      args: [String(fastProxyPort), fastUpstream.url, String(slowProxyPort), slowUpstream.url],
      port: fastProxyPort,
      readyPath: '/v1/models',
    });
    const slowProxyUrl = `http://127.0.0.1:${slowProxyPort}`;
    await waitUntilAnswers(`${slowProxyUrl}/v1/models`);

    const routingFile = path.join(workDir, 'routing.json');
    writeFileSync(
      routingFile,
      JSON.stringify({
        providers: [
          { name: 'mock', type: 'openai', baseUrl: `${fastUpstream.url}/v1`, apiKey: 'x' },
          { name: 'mock-slow', type: 'openai', baseUrl: `${slowUpstream.url}/v1`, apiKey: 'x' },
        ],
        models: [
          { name: 'bench-model', deployments: [{ provider: 'mock', model: 'mock-model' }] },
          { name: 'bench-model-slow', deployments: [{ provider: 'mock-slow', model: 'mock-model' }] },
        ],
      }),
    );
    // BENCH_GATEWAY_CPU_PROFILE=<file>: the gateway writes a V8 CPU profile of its whole run there.
    const profile = process.env.BENCH_GATEWAY_CPU_PROFILE;
    const startGateway = async (workers: number) => {
      const port = await freePort();
      return start({
        script: path.join(distRoot, 'apps/llm-gateway/src/main.js'),
        env: {
          ...gatewayEnv({ databaseUrl, redisUrl, redisKeyPrefix, port, routingFile }),
          LLM_GATEWAY_WORKERS: String(workers),
          // As deployed (deploy/k8s/base/llm-gateway.yaml): a larger young generation.
          NODE_OPTIONS: [
            GATEWAY_NODE_OPTIONS,
            profile ? `--require ${path.join(distRoot, 'bench/src/harness/cpu-profile-preload.js')}` : '',
          ]
            .join(' ')
            .trim(),
          ...(profile ? { FED_BENCH_CPU_PROFILE: path.resolve(profile) } : {}),
        },
        port,
        readyPath: '/readyz',
        readyTimeoutMs: 60_000,
      });
    };
    const gateway = await startGateway(GATEWAY_WORKERS);

    const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${apiKey}` };
    const fast: PerTarget<Target> = {
      direct: { url: `${fastUpstream.url}/v1/chat/completions`, model: 'mock-model' },
      proxy: { url: `${fastProxy.url}/v1/chat/completions`, model: 'mock-model' },
      gateway: { url: `${gateway.url}/llm/v1/chat/completions`, model: 'bench-model' },
    };
    const slow: PerTarget<Target> = {
      direct: { url: `${slowUpstream.url}/v1/chat/completions`, model: 'mock-model' },
      proxy: { url: `${slowProxyUrl}/v1/chat/completions`, model: 'mock-model' },
      gateway: { url: `${gateway.url}/llm/v1/chat/completions`, model: 'bench-model-slow' },
    };
    const request = (target: Target, stream: boolean) => ({
      method: 'POST' as const,
      headers,
      body: chatBody(target.model, stream),
    });
    // Every gateway request sent, and those answered 2xx: each must leave one log row.
    const sentToGateway = { sent: 0, answered2xx: 0, unread: 0 };
    const tally = (target: TargetName, sent: number, answered2xx: number, unread = 0) => {
      if (target !== 'gateway') return;
      sentToGateway.sent += sent;
      sentToGateway.answered2xx += answered2xx;
      sentToGateway.unread += unread;
    };
    const phase = (name: string) => process.stdout.write(`${name}\n`);
    const turns = `turns of ${C1_TURN.sliceMs / 1000} s (${C1_TURN.prerollMs / 1000} s unmeasured before, ${C1_TURN.settleMs / 1000} s idle after),`;

    // Each target answers the echo, plain and streamed, before anything is measured.
    for (const name of TARGETS) {
      for (const [targets, stream] of [
        [fast, false],
        [fast, true],
        [slow, false],
      ] as const) {
        const target = targets[name];
        const answer = await fetch(target.url, { method: 'POST', headers, body: chatBody(target.model, stream) });
        const text = await answer.text();
        tally(name, 1, answer.ok ? 1 : 0);
        const echoed = stream ? text.includes('"content":"Echo: ') : text.includes('Echo: Hello, benchmark');
        if (!answer.ok || !echoed) throw new Error(`${name} ${target.url} answered ${answer.status}: ${text}`);
      }
    }

    const closedLoop = async (stream: boolean) => {
      const [direct, proxy, gateway] = (await inGeneratorProcess(
        'closedLoops',
        TARGETS.map((name) => ({ url: fast[name].url, request: request(fast[name], stream) })),
        { ...c1, ...C1_TURN, firstContent: stream },
      )) as [ClosedLoopResult, ClosedLoopResult, ClosedLoopResult];
      const results: PerTarget<ClosedLoopResult> = { direct, proxy, gateway };
      for (const name of TARGETS) tally(name, results[name].sent, results[name].ok);
      return results;
    };

    phase(`A: concurrency 1, plain (${c1.durationMs / 1000} s each in ${turns} after ${c1.warmupMs / 1000} s warm-up)`);
    const plain = await closedLoop(false);
    phase(
      `B: concurrency 1, streamed (${c1.durationMs / 1000} s each in ${turns} after ${c1.warmupMs / 1000} s warm-up)`,
    );
    const streamed = await closedLoop(true);

    phase(
      `C: open loop at ${OPEN_LOOP_RATE}/s, evenly spaced (${openLoopSeconds} s each in ${OPEN_LOOP_SLICE_SECONDS} s turns, ${C1_TURN.settleMs / 1000} s idle after each)`,
    );
    const [openDirect, openProxy, openGateway] = (await inGeneratorProcess(
      'openLoops',
      TARGETS.map((name) => ({ url: fast[name].url, request: request(fast[name], false) })),
      {
        rate: OPEN_LOOP_RATE,
        durationSeconds: openLoopSeconds,
        connections: 50,
        sliceSeconds: OPEN_LOOP_SLICE_SECONDS,
        settleMs: C1_TURN.settleMs,
      },
    )) as [OpenLoopResult, OpenLoopResult, OpenLoopResult];
    const openLoop: PerTarget<OpenLoopResult> = { direct: openDirect, proxy: openProxy, gateway: openGateway };
    for (const name of TARGETS) {
      // Requests that failed on the network count as sent: the gateway may have seen them.
      tally(name, openLoop[name].requests + openLoop[name].errors, openLoop[name].requests - openLoop[name].non2xx);
    }

    phase(
      `D: ${SATURATED_CONNECTIONS} connections, as fast as possible, upstream answering in ${SLOW_UPSTREAM_MS} ms (${saturatedSeconds} s each after ${saturatedWarmupSeconds} s warm-up)`,
    );
    const saturate = async (name: TargetName, target: Target) => {
      // A short run first: the connections to the upstream opened, the code that serves them warm.
      const warmup = await measureSaturatedDrained(target.url, {
        connections: SATURATED_CONNECTIONS,
        durationSeconds: saturatedWarmupSeconds,
        ...request(target, false),
      });
      tally(name, warmup.sent, warmup.ok, warmup.sent - warmup.answered);
      const result = await measureSaturatedDrained(target.url, {
        connections: SATURATED_CONNECTIONS,
        durationSeconds: saturatedSeconds,
        ...request(target, false),
      });
      tally(name, result.sent, result.ok, result.sent - result.answered);
      return result;
    };
    const saturated = {} as PerTarget<DrainedThroughputResult>;
    for (const name of TARGETS) saturated[name] = await saturate(name, slow[name]);
    // The gateway as one process (workers 1), started for this phase only; its rows join the log check.
    let saturatedOneProcess: DrainedThroughputResult | undefined;
    if (GATEWAY_WORKERS > 1) {
      const single = await startGateway(1);
      saturatedOneProcess = await saturate('gateway', {
        url: `${single.url}/llm/v1/chat/completions`,
        model: slow.gateway.model,
      });
      await single.stop();
    }

    // The batch writer flushes every LOG_FLUSH_MS; on SIGTERM it writes what is left before exiting.
    await sleep(LOG_FLUSH_MS + 1000);
    const beforeStop = await countLogRows(databaseUrl);
    await gateway.stop();
    const afterStop = await countLogRows(databaseUrl);
    const logs: LogCheck = {
      ...sentToGateway,
      rowsBeforeStop: beforeStop.rows,
      ...afterStop,
      pass:
        afterStop.rows === sentToGateway.sent &&
        // Every answer read was 2xx and has a 2xx row; an unread one has a row of either kind.
        sentToGateway.answered2xx + sentToGateway.unread === sentToGateway.sent &&
        afterStop.rows2xx >= sentToGateway.answered2xx &&
        afterStop.rows2xx <= sentToGateway.answered2xx + sentToGateway.unread &&
        afterStop.rows2xxWithoutUsage === 0,
    };

    // The all-in-one platform (`npm start`'s process, as it starts: no V8 options, no Redis) serves
    // the same gateway beside everything else; measured after the log check, on the same database and key.
    phase(
      `E: all-in-one platform, concurrency 1, plain and streamed (${c1.durationMs / 1000} s each in ${turns} after ${c1.warmupMs / 1000} s warm-up)`,
    );
    const allInOne = await measureAllInOne({
      distRoot,
      databaseUrl,
      routingFile,
      direct: fast.direct,
      c1,
      request,
    });

    const plainLatency = pick(plain, (r) => r.latency);
    const ttft = pick(streamed, (r) => r.firstContent as LatencyResult);
    const streamEnd = pick(streamed, (r) => r.latency);
    const plainAdded = addedFigures(plainLatency);
    const ttftAdded = addedFigures(ttft);
    const streamEndAdded = addedFigures(streamEnd);
    const openLoopAdded = addedFigures(openLoop);
    const below = (limit: number): Budget => ({ text: `< ${limit} µs`, pass: (gatewayAdded) => gatewayAdded < limit });
    const budgets = {
      c1AddedP50: plainAdded.gateway.p50 < BUDGET.c1AddedP50,
      c1AddedP99: plainAdded.gateway.p99 < BUDGET.c1AddedP99,
      ttftAddedP50: ttftAdded.gateway.p50 < BUDGET.ttftAddedP50,
      openLoopAddedP99: openLoopAdded.gateway.p99 < BUDGET.openLoopAddedP99,
      noLogRowLost: logs.pass,
      allInOneC1AddedP50: allInOne.plain.platform.p50 - allInOne.plain.direct.p50 < BUDGET.c1AddedP50,
      allInOneC1AddedP99: allInOne.plain.platform.p99 - allInOne.plain.direct.p99 < BUDGET.c1AddedP99,
      allInOneTtftAddedP50:
        allInOne.timeToFirstToken.platform.p50 - allInOne.timeToFirstToken.direct.p50 < BUDGET.ttftAddedP50,
    };

    const blank = { direct: '', 'bare proxy': '', 'proxy added': '', 'gw/proxy added': '' };
    const rows: Row[] = [
      ...latencyRows('A c1 plain', plainLatency, {
        p50: below(BUDGET.c1AddedP50),
        p99: below(BUDGET.c1AddedP99),
      }),
      ...latencyRows('B c1 stream TTFT', ttft, { p50: below(BUDGET.ttftAddedP50) }),
      ...latencyRows('B c1 stream end', streamEnd, {}, 2),
      ...allInOneRows(allInOne),
      ...latencyRows(`C open ${OPEN_LOOP_RATE}/s`, openLoop, { p99: below(BUDGET.openLoopAddedP99) }),
      {
        measure: `D ${SATURATED_CONNECTIONS} conns, ${SLOW_UPSTREAM_MS} ms upstream, req/s`,
        direct: saturated.direct.requestsPerSecond,
        'bare proxy': saturated.proxy.requestsPerSecond,
        gateway: saturated.gateway.requestsPerSecond,
        'proxy added': `${times(saturated.proxy.requestsPerSecond / saturated.direct.requestsPerSecond)} direct`,
        'gateway added': `${times(saturated.gateway.requestsPerSecond / saturated.direct.requestsPerSecond)} direct`,
        'gw/proxy added': '',
        budget: '',
        verdict: '',
      },
      ...(saturatedOneProcess
        ? [
            {
              ...blank,
              measure: `D gateway in one process (workers 1), req/s`,
              gateway: saturatedOneProcess.requestsPerSecond,
              'gateway added': `${times(saturatedOneProcess.requestsPerSecond / saturated.direct.requestsPerSecond)} direct`,
              budget: '',
              verdict: '',
            },
          ]
        : []),
      {
        measure: `D p50 / p99 ms (${saturated.direct.generator})`,
        direct: `${saturated.direct.p50} / ${saturated.direct.p99}`,
        'bare proxy': `${saturated.proxy.p50} / ${saturated.proxy.p99}`,
        gateway: `${saturated.gateway.p50} / ${saturated.gateway.p99}`,
        'proxy added': '',
        'gateway added': '',
        'gw/proxy added': '',
        budget: '',
        verdict: '',
      },
      {
        measure: 'log rows / gateway requests sent',
        ...blank,
        gateway: `${logs.rows} / ${logs.sent}`,
        'gateway added': `2xx read ${logs.answered2xx}, 2xx rows ${logs.rows2xx}${logs.unread > 0 ? `, unread ${logs.unread}` : ''}`,
        budget: 'equal',
        verdict: logs.pass ? 'ok' : 'MISSED',
      },
      {
        measure: "2xx log rows without 'reported' usage",
        ...blank,
        gateway: logs.rows2xxWithoutUsage,
        'gateway added': `rows not reported: ${logs.rowsNotReported}`,
        budget: '0',
        verdict: logs.rows2xxWithoutUsage === 0 ? 'ok' : 'MISSED',
      },
    ];
    const errors = {
      openLoop: pick(openLoop, (r) => r.errors + r.non2xx),
      saturated: pick(saturated, (r) => r.errors + r.non2xx + (r.sent - r.answered)),
    };
    const elapsedSeconds = Math.round((performance.now() - startedAt) / 100) / 10;

    printTable(
      `gateway: llm-gateway overhead (${GATEWAY_WORKERS} worker process${GATEWAY_WORKERS === 1 ? '' : 'es'}; added = target minus direct; ` +
        `µs unless noted; mock upstream answering at once, ${SLOW_UPSTREAM_MS} ms in D)`,
      rows,
    );
    process.stdout.write(
      `errors: open loop ${JSON.stringify(errors.openLoop)}, saturated ${JSON.stringify(errors.saturated)}\n` +
        `log rows: ${logs.rowsBeforeStop} ${(LOG_FLUSH_MS + 1000) / 1000} s after the last request, ${logs.rows} after SIGTERM; ` +
        `gateway requests sent ${logs.sent}, answered 2xx ${logs.answered2xx}, left unread by the load generator ${logs.unread}\n` +
        `budgets: ${Object.entries(budgets)
          .map(([name, pass]) => `${name} ${pass ? 'ok' : 'MISSED'}`)
          .join(', ')}\n` +
        `took ${elapsedSeconds} s\n`,
    );
    const file = writeResult(resultsDir, 'gateway', {
      quick,
      elapsedSeconds,
      settings: {
        concurrency1: c1,
        openLoop: { rate: OPEN_LOOP_RATE, durationSeconds: openLoopSeconds, connections: 50 },
        saturated: {
          connections: SATURATED_CONNECTIONS,
          durationSeconds: saturatedSeconds,
          upstreamLatencyMs: SLOW_UPSTREAM_MS,
          generator: saturated.gateway.generator,
        },
        budgetMicroseconds: BUDGET,
        gatewayWorkers: GATEWAY_WORKERS,
      },
      plain: { results: plain, added: plainAdded },
      streamed: { results: streamed, addedTimeToFirstToken: ttftAdded, addedStreamEnd: streamEndAdded },
      allInOne,
      openLoop: { results: openLoop, added: openLoopAdded },
      saturated: {
        results: saturated,
        ratioToDirect: {
          proxy: saturated.proxy.requestsPerSecond / saturated.direct.requestsPerSecond,
          gateway: saturated.gateway.requestsPerSecond / saturated.direct.requestsPerSecond,
          ...(saturatedOneProcess
            ? { gatewayOneProcess: saturatedOneProcess.requestsPerSecond / saturated.direct.requestsPerSecond }
            : {}),
        },
        gatewayOneProcess: saturatedOneProcess,
      },
      logs,
      errors,
      budgets,
      table: rows,
    });
    process.stdout.write(`written ${file}\n`);
  } finally {
    for (const server of servers.reverse()) await server.stop();
    rmSync(workDir, { recursive: true, force: true });
    await deleteRedisKeys(redisUrl, redisKeyPrefix).catch(() => 0);
  }
}

/**
 * What llm-gateway adds to a model call, against the mock upstream called directly and through a
 * bare Node pass-through (the floor): latency at concurrency 1 (plain, and streamed to the first
 * token), at 500 requests/s open loop, throughput against a 20 ms upstream; and that every request
 * left its log row with the usage reported.
 */
export const gatewayBenchmark: Benchmark = {
  name: 'gateway',
  description:
    'POST /llm/v1/chat/completions through llm-gateway (virtual key with limits, PostgreSQL, Redis) vs the mock upstream directly and a bare undici pass-through',
  run: (context) => withScratchDatabase((databaseUrl) => run(context, databaseUrl)),
};
