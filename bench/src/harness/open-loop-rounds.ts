import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { type RequestShape, microsecondHistogram, microsecondsSince, sendRequest, summarize } from './latency';
import { type OpenLoopResult } from './open-loop';

export interface OpenLoopTarget {
  url: string;
  request?: RequestShape;
}

/**
 * `measureOpenLoop` for several targets taking turns: evenly spaced arrivals at `rate` whatever the
 * server is doing, in slices of `sliceSeconds` per target, round robin, `durationSeconds` in all for
 * each. A slice waits for its last answers before the next target's starts, so the targets never
 * share the machine, and a slow spell of the machine falls on all of them alike.
 *
 * A request is sent when it is due, never before (`measureOpenLoop` sends those due within the next
 * millisecond at once, which times a sub-millisecond server's answers below zero, counted as 1 µs),
 * and timed from that moment: the wait for a free connection counts (no coordinated omission), the
 * lateness of the generator's own timers (up to a millisecond or so, the same for every target)
 * does not.
 */
export async function measureOpenLoops(
  targets: readonly OpenLoopTarget[],
  options: {
    rate: number;
    durationSeconds: number;
    connections: number;
    sliceSeconds?: number;
    /** Idle after each slice, so that a target's background work (a log flush) is done before the next one's. */
    settleMs?: number;
  },
): Promise<OpenLoopResult[]> {
  const states = targets.map((spec) => ({
    spec,
    target: new URL(spec.url),
    agent: new http.Agent({ keepAlive: true, maxSockets: options.connections }),
    histogram: microsecondHistogram(120),
    answered: 0,
    non2xx: 0,
    errors: 0,
    elapsedMs: 0,
  }));
  const intervalMs = 1000 / options.rate;
  const sliceSeconds = Math.min(options.sliceSeconds ?? 1, options.durationSeconds);
  try {
    for (let done = 0; done < options.durationSeconds; done += sliceSeconds) {
      const seconds = Math.min(sliceSeconds, options.durationSeconds - done);
      for (const state of states) {
        const total = Math.round(options.rate * seconds);
        const started = performance.now();
        const pending: Promise<void>[] = [];
        for (let i = 0; i < total; i++) {
          const due = started + i * intervalMs;
          const wait = due - performance.now();
          // Never early (a request sent before it is due would be timed short, below zero for a
          // fast server); timers fire up to a millisecond or so late.
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          const sentAt = performance.now();
          pending.push(
            sendRequest(state.agent, state.target, state.spec.request).then(
              (status) => {
                if (status < 200 || status >= 300) state.non2xx++;
                state.answered++;
                state.histogram.recordValue(microsecondsSince(sentAt));
              },
              () => {
                state.errors++;
              },
            ),
          );
        }
        await Promise.all(pending);
        state.elapsedMs += performance.now() - started;
        if (options.settleMs) await sleep(options.settleMs);
      }
    }
    return states.map((state) => ({
      ...summarize(state.histogram, state.answered),
      requestsPerSecond: Math.round(state.answered / (state.elapsedMs / 1000)),
      non2xx: state.non2xx,
      errors: state.errors,
    }));
  } finally {
    for (const state of states) state.agent.destroy();
  }
}
