import type * as hdr from 'hdr-histogram-js';
import http from 'node:http';
import { setTimeout } from 'node:timers/promises';
import {
  type LatencyResult,
  type RequestShape,
  microsecondHistogram,
  microsecondsSince,
  sendRequest,
  summarize,
} from './latency';

/** A streamed chat-completion chunk that carries text: `"content":"` followed by something. */
const CONTENT = /"content"\s*:\s*"[^"]/;
/** Kept from the previous chunk, so a marker split across two chunks is still seen. */
const CARRY = 32;

export interface ClosedLoopTarget {
  url: string;
  request?: RequestShape;
}

export interface ClosedLoopResult {
  /** Whole answers, in microseconds (from sending the request to the end of the body). */
  latency: LatencyResult;
  /** Microseconds from sending the request to the first body bytes with non-empty `"content"`. */
  firstContent?: LatencyResult;
  /** Requests sent, the warm-up included (all answered: a failure ends the run). */
  sent: number;
  /** Of those, answered 2xx (all of them: another status ends the run). */
  ok: number;
}

interface Timing {
  status: number;
  /** `performance.now()` when the first content arrived, or null. */
  firstContentAt: number | null;
}

async function timedRequest(
  agent: http.Agent,
  target: URL,
  request: RequestShape | undefined,
  watchContent: boolean,
): Promise<Timing> {
  let firstContentAt: number | null = null;
  let carry = '';
  const status = await sendRequest(
    agent,
    target,
    request,
    watchContent
      ? (chunk) => {
          if (firstContentAt !== null) return;
          const text = carry + chunk.toString('latin1');
          if (CONTENT.test(text)) firstContentAt = performance.now();
          else carry = text.slice(-CARRY);
        }
      : undefined,
  );
  return { status, firstContentAt };
}

/** One target's loop: its own keep-alive connection, histograms and counts. */
class Loop {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  private readonly target: URL;
  readonly whole: hdr.Histogram = microsecondHistogram(60);
  readonly first: hdr.Histogram | null;
  requests = 0;
  sent = 0;
  ok = 0;

  constructor(
    private readonly spec: ClosedLoopTarget,
    private readonly watch: boolean,
  ) {
    this.target = new URL(spec.url);
    this.first = watch ? microsecondHistogram(60) : null;
  }

  async once(): Promise<Timing> {
    this.sent++;
    const timing = await timedRequest(this.agent, this.target, this.spec.request, this.watch);
    if (timing.status < 200 || timing.status >= 300) throw new Error(`${this.spec.url} answered ${timing.status}`);
    this.ok++;
    if (this.watch && timing.firstContentAt === null) throw new Error(`${this.spec.url} streamed no content`);
    return timing;
  }

  async warm(untilMs: number): Promise<void> {
    while (performance.now() < untilMs) await this.once();
  }

  async measure(untilMs: number): Promise<void> {
    while (performance.now() < untilMs) {
      const started = performance.now();
      const timing = await this.once();
      this.whole.recordValue(microsecondsSince(started));
      if (this.first && timing.firstContentAt !== null) {
        this.first.recordValue(Math.max(1, Math.round((timing.firstContentAt - started) * 1000)));
      }
      this.requests++;
    }
  }

  result(): ClosedLoopResult {
    return {
      latency: summarize(this.whole, this.requests),
      ...(this.first ? { firstContent: summarize(this.first, this.requests) } : {}),
      sent: this.sent,
      ok: this.ok,
    };
  }

  close(): void {
    this.agent.destroy();
  }
}

export interface ClosedLoopOptions {
  durationMs: number;
  warmupMs: number;
  /** Measured time of each turn (default 250 ms). */
  sliceMs?: number;
  /**
   * Unmeasured requests at the start of each turn, and an idle pause after it: a target whose
   * background work follows its load (a log flushed every so often) is measured in its steady state,
   * and that work is done before the next target's turn instead of being charged to it.
   */
  prerollMs?: number;
  settleMs?: number;
  firstContent?: boolean;
}

/**
 * Concurrency 1, closed loop over one keep-alive connection per target (as `measureLatency`): each
 * request is sent when the previous answer has been read. Several targets take turns in slices of
 * `sliceMs` (round robin, `durationMs` in all for each), so a slow spell of a shared machine falls on
 * all of them alike instead of on whichever ran then. Every request sent is counted, warm-up
 * included; with `firstContent`, the first streamed chunk carrying text (time to first token) is
 * timed besides the whole answer. Any answer but 2xx, or a stream without content, ends the run.
 */
export async function measureClosedLoops(
  targets: readonly ClosedLoopTarget[],
  options: ClosedLoopOptions,
): Promise<ClosedLoopResult[]> {
  const loops = targets.map((target) => new Loop(target, options.firstContent === true));
  try {
    for (const loop of loops) await loop.warm(performance.now() + options.warmupMs);
    const sliceMs = Math.min(options.sliceMs ?? 250, options.durationMs);
    for (let done = 0; done < options.durationMs; done += sliceMs) {
      const slice = Math.min(sliceMs, options.durationMs - done);
      for (const loop of loops) {
        if (options.prerollMs) await loop.warm(performance.now() + options.prerollMs);
        await loop.measure(performance.now() + slice);
        if (options.settleMs) await setTimeout(options.settleMs);
      }
    }
    return loops.map((loop) => loop.result());
  } finally {
    for (const loop of loops) loop.close();
  }
}

/** One target of `measureClosedLoops`. */
export async function measureClosedLoop(
  url: string,
  options: Omit<ClosedLoopOptions, 'sliceMs' | 'prerollMs' | 'settleMs'> & { request?: RequestShape },
): Promise<ClosedLoopResult> {
  const [result] = await measureClosedLoops([{ url, request: options.request }], options);
  return result as ClosedLoopResult;
}
