import http from 'node:http';
import {
  type LatencyResult,
  type RequestShape,
  microsecondHistogram,
  microsecondsSince,
  sendRequest,
  summarize,
} from './latency';

export interface OpenLoopResult extends LatencyResult {
  /** Requests answered per second over the run. */
  requestsPerSecond: number;
  non2xx: number;
  /** Requests that failed on the network. */
  errors: number;
  /** The network errors by code and the answers other than 2xx by status, when there were any. */
  errorKinds?: Record<string, number>;
}

/**
 * Open-loop load at a fixed rate: request i is due at start + i/rate, evenly spaced, whatever the
 * server is doing (autocannon's rate mode sends each second's requests in bursts). Latency counts
 * from the time a request was due, not from when a free connection sent it, so a server that
 * falls behind shows it (no coordinated omission). Microseconds, in an HDR histogram.
 */
export async function measureOpenLoop(
  url: string,
  options: {
    rate: number;
    durationSeconds: number;
    connections: number;
    request?: RequestShape;
    /** Sent at the same rate before the measured seconds, not recorded: connections open, the server at this load. */
    warmupSeconds?: number;
  },
): Promise<OpenLoopResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const target = new URL(url);
  const histogram = microsecondHistogram(120);
  let non2xx = 0;
  let errors = 0;
  const errorKinds: Record<string, number> = {};
  let answered = 0;
  const warmup = Math.round(options.rate * (options.warmupSeconds ?? 0));
  const total = warmup + Math.round(options.rate * options.durationSeconds);
  const intervalMs = 1000 / options.rate;
  const started = performance.now();
  const measuredFrom = started + warmup * intervalMs;
  const pending: Promise<void>[] = [];

  const send = (due: number, measured: boolean) => {
    const sent = sendRequest(agent, target, options.request);
    if (!measured)
      return sent.then(
        () => undefined,
        () => undefined,
      );
    return sent.then(
      (status) => {
        if (status >= 300) {
          non2xx++;
          errorKinds[`status ${status}`] = (errorKinds[`status ${status}`] ?? 0) + 1;
        }
        answered++;
        histogram.recordValue(microsecondsSince(due));
      },
      (error: NodeJS.ErrnoException) => {
        errors++;
        const kind = error.code ?? error.message;
        errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
      },
    );
  };

  for (let i = 0; i < total; i++) {
    const due = started + i * intervalMs;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(send(due, i >= warmup));
  }
  await Promise.all(pending);
  const elapsedSeconds = (performance.now() - measuredFrom) / 1000;
  agent.destroy();
  return {
    ...summarize(histogram, answered),
    requestsPerSecond: Math.round(answered / elapsedSeconds),
    non2xx,
    errors,
    ...(errors + non2xx > 0 ? { errorKinds } : {}),
  };
}
