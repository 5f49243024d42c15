import { MetricsScrape } from '@fed/testing';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ChatClient } from '../clients/chat-client';
import { ECHO_MODEL, FaultStack } from '../stack/fault-stack';
import { type AnswerShape } from '../stack/scripted-answers';

export interface SoakOptions {
  distRoot: string;
  minutes: number;
  /** Chat streams kept open at once: each client starts its next turn when one ends. */
  streams: number;
  /** Non-streamed gateway requests a second (the echo model: no chat turn behind them). */
  gatewayRate: number;
  sampleSeconds: number;
  answers: AnswerShape;
  log(line: string): void;
}

/** One scrape of one process's `/metrics`. */
export interface ProcessSample {
  atSeconds: number;
  rssMiB: number;
  /** V8's heap in use (`nodejs_heap_size_used_bytes`): tells a heap that grows from RSS that only settles. */
  heapUsedMiB: number;
  /** Memory outside V8's heap held by JavaScript objects (buffers): `nodejs_external_memory_bytes`. */
  externalMiB: number;
  /** The p99 of the event loop's delay over the interval since the previous scrape (prom-client resets it). */
  lagP99Ms: number;
  handles: number;
  /** chat-service only: `sse_streams_active{kind="chat"}`. */
  openStreams?: number;
}

export interface SoakOutcome {
  samples: Record<string, ProcessSample[]>;
  turns: { completed: number; errorChunks: number; other: number; hanging: number; refused: number };
  gateway: { ok: number; failed: number };
  seconds: number;
}

/**
 * The soak: `streams` chat clients in closed loop (a turn, then the next) over two chat-service and two
 * agent-runtime instances, steady non-streamed gateway traffic beside them, and every process's memory,
 * event-loop delay and open handles sampled from its `/metrics` every `sampleSeconds`.
 */
export async function runSoak(options: SoakOptions): Promise<SoakOutcome> {
  const runtimes = 2;
  const stack = await FaultStack.start({
    distRoot: options.distRoot,
    chatInstances: 2,
    runtimes,
    redis: 'shared',
    postgres: 'shared',
    answers: options.answers,
    recordRequests: false,
    env: { AGENT_CONCURRENCY: String(Math.min(1000, Math.ceil(options.streams / runtimes) + 50)) },
  });
  try {
    const gatewayKey = await stack.createGatewayKey('soak');
    const turns = { completed: 0, errorChunks: 0, other: 0, hanging: 0, refused: 0 };
    const gateway = { ok: 0, failed: 0 };
    const samples: Record<string, ProcessSample[]> = {};
    const started = Date.now();
    const endAt = started + options.minutes * 60_000;
    const turnMs = options.answers.pieces * options.answers.pauseMs;
    let deadline = endAt + turnMs + 120_000;
    const client = new ChatClient({
      instances: () => stack.liveChats().map((chat) => chat.url),
      token: (userId) => stack.userToken(userId),
      deadline: () => deadline,
    });

    // Clients join over the first tenth of a turn's length, so turns do not all start and end together.
    const rampMs = Math.min(turnMs, 60_000);
    const loops = Array.from({ length: options.streams }, async (_, index) => {
      await sleep((rampMs * index) / options.streams);
      while (Date.now() < endAt) {
        const record = await client.runTurn(randomUUID(), `soak ${index}`);
        if (record.outcome === 'completed') turns.completed++;
        else if (record.outcome === 'error-chunk') turns.errorChunks++;
        else if (record.outcome === 'hanging') turns.hanging++;
        else if (record.outcome === 'refused') turns.refused++;
        else turns.other++;
        if (record.outcome === 'refused') await sleep(1000);
      }
    });

    const gatewayTraffic = (async () => {
      const gatewayUrl = `${stack.gateway?.url}/llm/v1/chat/completions`;
      const body = JSON.stringify({ model: ECHO_MODEL, messages: [{ role: 'user', content: 'soak gateway traffic' }] });
      const pending = new Set<Promise<void>>();
      for (let k = 0; Date.now() < endAt; k++) {
        const wait = started + (k * 1000) / options.gatewayRate - Date.now();
        if (wait > 0) await sleep(wait);
        const call = fetch(gatewayUrl, {
          method: 'POST',
          headers: { authorization: `Bearer ${gatewayKey}`, 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(30_000),
        }).then(
          async (res) => {
            await res.arrayBuffer();
            if (res.ok) gateway.ok++;
            else gateway.failed++;
          },
          () => void gateway.failed++,
        );
        pending.add(call);
        void call.finally(() => pending.delete(call));
      }
      await Promise.all(pending);
    })();

    const sampling = (async () => {
      for (let tick = 1; ; tick++) {
        const at = started + tick * options.sampleSeconds * 1000;
        if (at > endAt) return;
        await sleep(at - Date.now());
        const atSeconds = Math.round((Date.now() - started) / 1000);
        const services = stack.liveServices();
        await Promise.all(
          services.map(async (service) => {
            try {
              const scrape = await MetricsScrape.of(service.url);
              const sample: ProcessSample = {
                atSeconds,
                rssMiB: scrape.sum('process_resident_memory_bytes') / 2 ** 20,
                heapUsedMiB: scrape.sum('nodejs_heap_size_used_bytes') / 2 ** 20,
                externalMiB: scrape.sum('nodejs_external_memory_bytes') / 2 ** 20,
                lagP99Ms: scrape.sum('nodejs_eventloop_lag_p99_seconds') * 1000,
                handles: scrape.sum('nodejs_active_handles_total'),
              };
              if (service.app === 'chat-service')
                sample.openStreams = scrape.sum('sse_streams_active', { kind: 'chat' });
              (samples[service.name] ??= []).push(sample);
            } catch {
              // a scrape that fails is a gap in the series, not a reason to stop
            }
          }),
        );
        const open = services
          .map((service) => samples[service.name]?.at(-1)?.openStreams ?? 0)
          .reduce((a, b) => a + b, 0);
        const rss = services.map((s) => `${s.name} ${Math.round(samples[s.name]?.at(-1)?.rssMiB ?? 0)}`).join(', ');
        options.log(
          `  ${atSeconds} s: ${open} streams open, turns ${turns.completed} completed / ${turns.errorChunks} error / ${turns.hanging} hanging, gateway ${gateway.ok} ok / ${gateway.failed} failed; RSS MiB ${rss}`,
        );
      }
    })();

    await sampling;
    // New turns stop at endAt; those running get a turn's length and two minutes to end.
    deadline = Date.now() + turnMs + 120_000;
    await Promise.all([...loops, gatewayTraffic]);
    client.close();
    return { samples, turns, gateway, seconds: Math.round((Date.now() - started) / 1000) };
  } finally {
    await stack.close();
  }
}
