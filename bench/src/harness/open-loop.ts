import * as hdr from 'hdr-histogram-js';
import http from 'node:http';
import { type LatencyResult, type RequestShape } from './latency';

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
  const histogram = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 120_000_000,
    numberOfSignificantValueDigits: 3,
  });
  let non2xx = 0;
  let errors = 0;
  let answered = 0;
  const total = Math.round(options.rate * options.durationSeconds);
  const intervalMs = 1000 / options.rate;
  const started = performance.now();
  const pending: Promise<void>[] = [];

  const send = (due: number) =>
    new Promise<void>((resolve) => {
      const req = http.request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname + target.search,
          agent,
          method: options.request?.method ?? 'GET',
          headers: options.request?.headers,
        },
        (res) => {
          res.on('data', () => undefined);
          res.on('end', () => {
            if ((res.statusCode ?? 0) >= 300) non2xx++;
            answered++;
            histogram.recordValue(Math.max(1, Math.round((performance.now() - due) * 1000)));
            resolve();
          });
        },
      );
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(options.request?.body);
    });

  for (let i = 0; i < total; i++) {
    const due = started + i * intervalMs;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(send(due));
  }
  await Promise.all(pending);
  const elapsedSeconds = (performance.now() - started) / 1000;
  agent.destroy();
  const result: OpenLoopResult = {
    requests: answered,
    requestsPerSecond: Math.round(answered / elapsedSeconds),
    p50: histogram.getValueAtPercentile(50),
    p90: histogram.getValueAtPercentile(90),
    p99: histogram.getValueAtPercentile(99),
    p999: histogram.getValueAtPercentile(99.9),
    max: histogram.maxValue,
    mean: Math.round(histogram.mean),
    non2xx,
    errors,
  };
  histogram.destroy();
  return result;
}
