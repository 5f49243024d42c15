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
  errors: number;
}

/**
 * Open-loop load at a fixed rate: request i is due at start + i/rate, evenly spaced, whatever the
 * server is doing (autocannon's rate mode sends each second's requests in bursts). Latency counts
 * from the time a request was due, not from when a free connection sent it, so a server that
 * falls behind shows it (no coordinated omission). Microseconds, in an HDR histogram.
 */
export async function measureOpenLoop(
  url: string,
  options: { rate: number; durationSeconds: number; connections: number; request?: RequestShape },
): Promise<OpenLoopResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const target = new URL(url);
  const histogram = microsecondHistogram(120);
  let non2xx = 0;
  let errors = 0;
  let answered = 0;
  const total = Math.round(options.rate * options.durationSeconds);
  const intervalMs = 1000 / options.rate;
  const started = performance.now();
  const pending: Promise<void>[] = [];

  const send = (due: number) =>
    sendRequest(agent, target, options.request).then(
      (status) => {
        if (status >= 300) non2xx++;
        answered++;
        histogram.recordValue(microsecondsSince(due));
      },
      () => {
        errors++;
      },
    );

  for (let i = 0; i < total; i++) {
    const due = started + i * intervalMs;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(send(due));
  }
  await Promise.all(pending);
  const elapsedSeconds = (performance.now() - started) / 1000;
  agent.destroy();
  return {
    ...summarize(histogram, answered),
    requestsPerSecond: Math.round(answered / elapsedSeconds),
    non2xx,
    errors,
  };
}
