import { testServiceUrls } from '@fed/config';
import { runMigrations } from '@fed/persistence';
import { OtlpReceiver, deleteRedisKeys } from '@fed/testing';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ChildServer, freePort, startChildServer } from '../harness/child-server';
import { type ClosedLoopResult, measureClosedLoops } from '../harness/closed-loop';
import { type LatencyResult } from '../harness/latency';
import { type Row, printTable, writeResult } from '../harness/report';
import { withScratchDatabase } from '../harness/scratch-database';
import { type Benchmark, type BenchmarkContext } from './benchmark';
// As the gateway benchmark: its key, its gateway settings, its round robin in turns (each target
// measured with its log flushes at their steady rate).
import { C1_TURN, GATEWAY_NODE_OPTIONS, createKey, gatewayEnv } from './gateway.bench';

/** The gateway's budget of added latency (spec document 3, as in the gateway benchmark), in microseconds. */
const BUDGET = { c1AddedP50: 500, c1AddedP99: 1500 };

type TargetName = 'direct' | 'off' | 'on' | 'sampled';
const TARGETS: readonly TargetName[] = ['direct', 'off', 'on', 'sampled'];
/** The sampled gateway keeps this fraction of traces (OTEL_TRACES_SAMPLER_ARG). */
const SAMPLED_RATIO = 0.1;
type PerTarget<T> = Record<TargetName, T>;

const chatBody = (stream: boolean) =>
  JSON.stringify({
    model: 'bench-model',
    messages: [{ role: 'user', content: 'Hello, benchmark' }],
    ...(stream ? { stream: true } : {}),
  });

const signed = (value: number) => (value >= 0 ? `+${value}` : String(value));

function rows(label: string, results: PerTarget<LatencyResult>, budgets: { p50?: number; p99?: number }): Row[] {
  return (
    [
      ['p50', (r: LatencyResult) => r.p50],
      ['p99', (r: LatencyResult) => r.p99],
      ['p99.9', (r: LatencyResult) => r.p999],
    ] as const
  ).map(([percentile, figure]) => {
    const direct = figure(results.direct);
    const added = (target: TargetName) => figure(results[target]) - direct;
    const budget = budgets[percentile as 'p50' | 'p99'];
    return {
      measure: `${label} ${percentile} µs`,
      direct,
      'tracing off': figure(results.off),
      'tracing on': figure(results.on),
      [`on, ${SAMPLED_RATIO * 100}% sampled`]: figure(results.sampled),
      'added, off': signed(added('off')),
      'added, on': signed(added('on')),
      [`added, ${SAMPLED_RATIO * 100}%`]: signed(added('sampled')),
      budget: budget === undefined ? '' : `< ${budget} µs`,
      verdict:
        budget === undefined
          ? ''
          : (['off', 'on', 'sampled'] as const).map((target) => (added(target) < budget ? 'ok' : 'MISSED')).join(' / '),
    };
  });
}

async function run({ distRoot, resultsDir, quick }: BenchmarkContext, databaseUrl: string): Promise<void> {
  const startedAt = performance.now();
  const c1 = quick ? { durationMs: 2000, warmupMs: 500 } : { durationMs: 8000, warmupMs: 2000 };
  const redisUrl = testServiceUrls().redisUrl;
  const redisKeyPrefix = `bench:gwt:${randomUUID().slice(0, 8)}:`;
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'fed-bench-gateway-tracing-'));
  const servers: ChildServer[] = [];
  const start = async (options: Parameters<typeof startChildServer>[0]) => {
    const server = await startChildServer(options);
    servers.push(server);
    return server;
  };
  // The collector: spans of the traced gateway are sent here, as they would be to a collector beside it.
  const sink = await OtlpReceiver.start();

  try {
    await runMigrations(databaseUrl);
    const apiKey = await createKey(databaseUrl);
    const upstreamPort = await freePort();
    const upstream = await start({
      script: path.join(distRoot, 'libs/testing/src/model-upstream/main.js'),
      args: ['--port', String(upstreamPort), '--latency-ms', '0'],
      port: upstreamPort,
      readyPath: '/v1/models',
    });
    const routingFile = path.join(workDir, 'routing.json');
    writeFileSync(
      routingFile,
      JSON.stringify({
        providers: [{ name: 'mock', type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'x' }],
        models: [{ name: 'bench-model', deployments: [{ provider: 'mock', model: 'mock-model' }] }],
      }),
    );
    const startGateway = async (tracing: Record<string, string>) => {
      const port = await freePort();
      return start({
        script: path.join(distRoot, 'apps/llm-gateway/src/main.js'),
        env: {
          ...gatewayEnv({ databaseUrl, redisUrl, redisKeyPrefix, port, routingFile }),
          NODE_OPTIONS: GATEWAY_NODE_OPTIONS,
          ...tracing,
        },
        port,
        readyPath: '/readyz',
        readyTimeoutMs: 60_000,
      });
    };
    const gatewayOff = await startGateway({});
    // As deployed with a collector: OTLP/HTTP protobuf, batched (the SDK's defaults), every request sampled.
    const gatewayOn = await startGateway({ OTEL_EXPORTER_OTLP_ENDPOINT: sink.url });
    // As advised for high volume (docs/operations.md): a fraction of traces kept, decided where each starts.
    const gatewaySampled = await startGateway({
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: String(SAMPLED_RATIO),
    });

    const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${apiKey}` };
    const urls: PerTarget<string> = {
      direct: `${upstream.url}/v1/chat/completions`,
      off: `${gatewayOff.url}/llm/v1/chat/completions`,
      on: `${gatewayOn.url}/llm/v1/chat/completions`,
      sampled: `${gatewaySampled.url}/llm/v1/chat/completions`,
    };
    const request = (stream: boolean) => ({ method: 'POST' as const, headers, body: chatBody(stream) });
    for (const name of TARGETS) {
      const answer = await fetch(urls[name], request(false));
      if (!answer.ok) throw new Error(`${name} answered ${answer.status}: ${await answer.text()}`);
    }

    const closedLoop = async (stream: boolean) => {
      const [direct, off, on, sampled] = (await measureClosedLoops(
        TARGETS.map((name) => ({ url: urls[name], request: request(stream) })),
        { ...c1, ...C1_TURN, firstContent: stream },
      )) as [ClosedLoopResult, ClosedLoopResult, ClosedLoopResult, ClosedLoopResult];
      return { direct, off, on, sampled };
    };
    const turns = `in turns of ${C1_TURN.sliceMs / 1000} s after ${c1.warmupMs / 1000} s warm-up`;
    process.stdout.write(`A: concurrency 1, plain (${c1.durationMs / 1000} s each ${turns})\n`);
    const plain = await closedLoop(false);
    process.stdout.write(`B: concurrency 1, streamed (${c1.durationMs / 1000} s each ${turns})\n`);
    const streamed = await closedLoop(true);
    // The traced gateway's last batch is exported within the SDK's schedule (5 s).
    await sleep(5500);

    const pick = <T>(results: PerTarget<ClosedLoopResult>, figure: (r: ClosedLoopResult) => T): PerTarget<T> => ({
      direct: figure(results.direct),
      off: figure(results.off),
      on: figure(results.on),
      sampled: figure(results.sampled),
    });
    const table: Row[] = [
      ...rows(
        'A c1 plain',
        pick(plain, (r) => r.latency),
        { p50: BUDGET.c1AddedP50, p99: BUDGET.c1AddedP99 },
      ),
      ...rows(
        'B c1 stream TTFT',
        pick(streamed, (r) => r.firstContent as LatencyResult),
        {},
      ),
    ];
    const tracedRequests = plain.on.sent + streamed.on.sent + plain.sampled.sent + streamed.sampled.sent;
    const elapsedSeconds = Math.round((performance.now() - startedAt) / 100) / 10;
    printTable(
      'gateway-tracing: llm-gateway with tracing off, on, and on with 1 trace in 10 kept (added = gateway minus direct; µs; mock upstream answering at once)',
      table,
    );
    process.stdout.write(
      `traced gateways: ${tracedRequests} requests, ${sink.exports} OTLP exports received by the sink\n` +
        `took ${elapsedSeconds} s\n`,
    );
    const file = writeResult(resultsDir, 'gateway-tracing', {
      quick,
      elapsedSeconds,
      settings: {
        concurrency1: c1,
        turns: C1_TURN,
        exporter: 'otlp http/protobuf, batch span processor defaults',
        sampledRatio: SAMPLED_RATIO,
      },
      plain,
      streamed,
      tracedRequests,
      exports: sink.exports,
      budgetMicroseconds: BUDGET,
      table,
    });
    process.stdout.write(`written ${file}\n`);
  } finally {
    for (const server of servers.reverse()) await server.stop();
    await sink.close();
    rmSync(workDir, { recursive: true, force: true });
    await deleteRedisKeys(redisUrl, redisKeyPrefix).catch(() => 0);
  }
}

/**
 * What tracing adds to llm-gateway's fast path: the gateway without a collector (no SDK at all), the
 * same gateway exporting every request's spans (server span, key check, limit check, provider call)
 * to a local OTLP sink, and one keeping a tenth of its traces, against the mock upstream called
 * directly, at concurrency 1.
 */
export const gatewayTracingBenchmark: Benchmark = {
  name: 'gateway-tracing',
  description:
    'POST /llm/v1/chat/completions through llm-gateway with tracing off, on and 10% sampled (OTLP to a local sink) vs the mock upstream directly',
  run: (context) => withScratchDatabase((databaseUrl) => run(context, databaseUrl)),
};
