import { readFileSync } from 'node:fs';
import path from 'node:path';
import { writeResult } from '../../harness/report';
import { machineLine, markdownTable, writeBetweenMarkers } from '../report/reliability-doc';
import { type ProcessSample, type SoakOutcome, runSoak } from './soak-run';
import { type GrowthLimit, type TrendVerdict, judgeTrend } from './trend';

const USAGE =
  'usage: soak [--minutes 30] [--streams 1000] [--gateway-rps 20] [--sample-seconds 10] [--no-doc] | soak --rejudge FILE [--no-doc]';
const FULL = { minutes: 30, streams: 1000 };

/** Growth allowed over the second half of the run (the first half is warm-up). */
const LIMITS: Record<'rssMiB' | 'handles' | 'lagP99Ms', GrowthLimit> = {
  rssMiB: { relative: 0.05, absolute: 10 },
  handles: { relative: 0.05, absolute: 20 },
  lagP99Ms: { relative: 0.5, absolute: 10 },
};

function parseArgs(argv: string[]) {
  const options = {
    minutes: FULL.minutes,
    streams: FULL.streams,
    gatewayRps: 20,
    sampleSeconds: 10,
    doc: true,
    rejudge: undefined as string | undefined,
  };
  const numbers: Record<string, 'minutes' | 'streams' | 'gatewayRps' | 'sampleSeconds'> = {
    '--minutes': 'minutes',
    '--streams': 'streams',
    '--gateway-rps': 'gatewayRps',
    '--sample-seconds': 'sampleSeconds',
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--no-doc') {
      options.doc = false;
      continue;
    }
    if (arg === '--rejudge' && argv[i + 1] !== undefined) {
      options.rejudge = argv[++i];
      continue;
    }
    const key = numbers[arg];
    const value = Number(argv[++i]);
    if (key === undefined || !Number.isFinite(value) || value <= 0) throw new Error(`bad argument ${arg}\n${USAGE}`);
    options[key] = value;
  }
  return options;
}

interface ProcessVerdict {
  name: string;
  samples: ProcessSample[];
  rss: TrendVerdict;
  /** Reported beside RSS, not judged: where RSS grows, whether the live heap does too. */
  heap: TrendVerdict;
  /** Reported, not judged: buffers and other memory outside the heap. */
  external: TrendVerdict;
  handles: TrendVerdict;
  lag: TrendVerdict;
}

const fixed = (value: number, digits = 1) => value.toFixed(digits);
const flat = (verdict: TrendVerdict) => (verdict.flat ? 'flat' : 'GROWS');
const signed = (value: number, digits = 0) => `${value >= 0 ? '+' : ''}${value.toFixed(digits)}`;

function judge(outcome: SoakOutcome): ProcessVerdict[] {
  return Object.entries(outcome.samples).map(([name, samples]) => ({
    name,
    samples,
    rss: judgeTrend(
      samples.map((s) => ({ atSeconds: s.atSeconds, value: s.rssMiB })),
      LIMITS.rssMiB,
    ),
    heap: judgeTrend(
      samples.map((s) => ({ atSeconds: s.atSeconds, value: s.heapUsedMiB ?? 0 })),
      LIMITS.rssMiB,
    ),
    external: judgeTrend(
      samples.map((s) => ({ atSeconds: s.atSeconds, value: s.externalMiB ?? 0 })),
      LIMITS.rssMiB,
    ),
    handles: judgeTrend(
      samples.map((s) => ({ atSeconds: s.atSeconds, value: s.handles })),
      LIMITS.handles,
    ),
    lag: judgeTrend(
      samples.map((s) => ({ atSeconds: s.atSeconds, value: s.lagP99Ms })),
      LIMITS.lagP99Ms,
    ),
  }));
}

/** "llm-gateway#1 open handles, chat-service#2 RSS". */
function growing(verdicts: ProcessVerdict[]): string {
  return verdicts
    .flatMap((v) => [
      ...(v.rss.flat ? [] : [`${v.name} RSS`]),
      ...(v.handles.flat ? [] : [`${v.name} open handles`]),
      ...(v.lag.flat ? [] : [`${v.name} event-loop delay`]),
    ])
    .join(', ');
}

function report(options: ReturnType<typeof parseArgs>, outcome: SoakOutcome, verdicts: ProcessVerdict[]): string {
  const full = options.minutes >= FULL.minutes && options.streams >= FULL.streams;
  const noGrowth = verdicts.every((v) => v.rss.flat && v.handles.flat && v.lag.flat);
  const { turns, gateway } = outcome;
  const healthy = turns.hanging === 0 && turns.other === 0;
  const rows = verdicts.map((v) => {
    const first = v.samples[0];
    const last = v.samples.at(-1);
    const maxLag = Math.max(...v.samples.map((s) => s.lagP99Ms));
    return [
      v.name,
      v.samples.length,
      `${fixed(first?.rssMiB ?? 0, 0)} → ${fixed(last?.rssMiB ?? 0, 0)}`,
      `${fixed(v.rss.slopePerMinute, 2)}, ${signed(v.rss.quarterRise)} (${flat(v.rss)})`,
      `${fixed(first?.heapUsedMiB ?? 0, 0)} → ${fixed(last?.heapUsedMiB ?? 0, 0)}, ${fixed(v.heap.slopePerMinute, 2)}/min`,
      `${fixed(first?.externalMiB ?? 0, 0)} → ${fixed(last?.externalMiB ?? 0, 0)}, ${fixed(v.external.slopePerMinute, 2)}/min`,
      `${first?.handles ?? 0} → ${last?.handles ?? 0}`,
      `${fixed(v.handles.slopePerMinute, 2)}, ${signed(v.handles.quarterRise)} (${flat(v.handles)})`,
      `${fixed(v.lag.mean)} / ${fixed(maxLag)}`,
      `${fixed(v.lag.slopePerMinute, 2)} (${flat(v.lag)})`,
    ];
  });
  const openStreams = verdicts
    .flatMap((v) => v.samples)
    .filter((s) => s.openStreams !== undefined)
    .reduce<Record<number, number>>((byTime, s) => {
      byTime[s.atSeconds] = (byTime[s.atSeconds] ?? 0) + (s.openStreams ?? 0);
      return byTime;
    }, {});
  const opened = Object.values(openStreams);
  return [
    `Last run: ${machineLine()}; \`npm run soak -- --minutes ${options.minutes} --streams ${options.streams}\`` +
      ` (${Math.round(outcome.seconds / 60)} min in all)` +
      (options.rejudge ? '; judged again from its recorded samples after the verdict rule changed (below).' : '.'),
    full
      ? ''
      : `\n**This was a short run (${options.minutes} min, ${options.streams} streams) to prove the script; the full run ` +
        `(${FULL.minutes} min, ${FULL.streams.toLocaleString('en')} streams): pending.** A run this short is mostly ` +
        'warm-up (clients join over the first minute), so its verdict says little about growth.',
    '',
    `Verdict: ${noGrowth ? '**no growth trend** in memory, open handles and event-loop delay of any process' : `**growth**: ${growing(verdicts)}`}` +
      `${healthy ? '' : `; **${turns.hanging} hanging and ${turns.other} cut turns**`}.`,
    '',
    `- Chat turns: ${turns.completed} completed, ${turns.errorChunks} ended with an error chunk, ${turns.hanging} hanging, ` +
      `${turns.other} cut, ${turns.refused} refused; open streams sampled: ${Math.min(...opened)} to ${Math.max(...opened)}.`,
    `- Gateway requests (${options.gatewayRps}/s, non-streamed): ${gateway.ok} answered 2xx, ${gateway.failed} not.`,
    `- Samples every ${options.sampleSeconds} s. Slopes are least-squares fits over the second half of the run; the ` +
      `quarter rise is the last quarter's 90th percentile minus the third quarter's. A series "grows" when the fitted ` +
      `rise over the second half exceeds the limit and the quarter rise half of it; the limit is ` +
      `${LIMITS.rssMiB.relative * 100} % of the series' mean or ` +
      `${LIMITS.rssMiB.absolute} MiB (RSS), ${LIMITS.handles.relative * 100} % or ${LIMITS.handles.absolute} (handles), ` +
      `${LIMITS.lagP99Ms.relative * 100} % or ${LIMITS.lagP99Ms.absolute} ms (event-loop delay p99).`,
    '',
    markdownTable(
      [
        'Process',
        'Samples',
        'RSS MiB first → last',
        'RSS slope MiB/min, quarter rise MiB',
        'Heap used MiB first → last, slope (not judged)',
        'External MiB first → last, slope (not judged)',
        'Handles first → last',
        'Handles slope /min, quarter rise',
        'Loop delay p99 ms mean / max',
        'Delay slope ms/min',
      ],
      rows,
    ),
  ].join('\n');
}

/** `npm run soak [-- options]`: the soak run; writes the "Soak" results of docs/reliability.md. */
async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const distRoot = path.resolve(__dirname, '../../../..');
  const log = (line: string) => process.stdout.write(`${line}\n`);
  let outcome: SoakOutcome;
  if (options.rejudge) {
    // A recorded run judged again (bench/results/soak.json), with the settings it ran with.
    const recorded = JSON.parse(readFileSync(options.rejudge, 'utf8')) as {
      at: string;
      data: { options: typeof options; outcome: SoakOutcome };
    };
    Object.assign(options, { ...recorded.data.options, doc: options.doc, rejudge: options.rejudge });
    outcome = recorded.data.outcome;
    log(`soak: judging the run recorded at ${recorded.at} again`);
  } else {
    log(
      `soak: ${options.minutes} min, ${options.streams} chat streams, ${options.gatewayRps} gateway requests/s, samples every ${options.sampleSeconds} s`,
    );
    outcome = await runSoak({
      distRoot,
      minutes: options.minutes,
      streams: options.streams,
      gatewayRate: options.gatewayRps,
      sampleSeconds: options.sampleSeconds,
      // An answer of a minute: 30 pieces 2 s apart, so a stream is open most of the time.
      answers: { pieces: 30, pauseMs: 2000 },
      log,
    });
  }
  const verdicts = judge(outcome);
  const text = report(options, outcome, verdicts);
  log(`\n${text}`);
  if (!options.rejudge) {
    const file = writeResult(path.resolve(distRoot, '../bench/results'), 'soak', { options, outcome });
    log(`written ${file}`);
  }
  if (options.doc) {
    const doc = path.resolve(distRoot, '../docs/reliability.md');
    writeBetweenMarkers(doc, 'soak:results', text, '## Soak');
    log(`written ${doc}`);
  }
  const grows = verdicts.some((v) => !v.rss.flat || !v.handles.flat || !v.lag.flat);
  if (grows || outcome.turns.hanging > 0 || outcome.turns.other > 0) process.exit(1);
}

// Ctrl-C: exit through process.exit, so that the servers the run started are stopped ('exit' handlers).
process.once('SIGINT', () => process.exit(130));
process.once('SIGTERM', () => process.exit(143));

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
