import * as hdr from 'hdr-histogram-js';
import http from 'node:http';

export interface LatencyResult {
  requests: number;
  /** Microseconds. */
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  mean: number;
}

/**
 * Concurrency 1, closed loop over one keep-alive connection: each request is sent when the previous
 * answer has been read, and its time recorded in microseconds in an HDR histogram.
 */
export interface RequestShape {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

export async function measureLatency(
  url: string,
  options: { durationMs: number; warmupMs: number; request?: RequestShape },
): Promise<LatencyResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const target = new URL(url);
  const once = () =>
    new Promise<void>((resolve, reject) => {
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
          res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
        },
      );
      req.on('error', reject);
      req.end(options.request?.body);
    });

  const warmupEnd = performance.now() + options.warmupMs;
  while (performance.now() < warmupEnd) await once();

  const histogram = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 60_000_000,
    numberOfSignificantValueDigits: 3,
  });
  const end = performance.now() + options.durationMs;
  let requests = 0;
  while (performance.now() < end) {
    const started = performance.now();
    await once();
    histogram.recordValue(Math.max(1, Math.round((performance.now() - started) * 1000)));
    requests++;
  }
  agent.destroy();
  const result = {
    requests,
    p50: histogram.getValueAtPercentile(50),
    p90: histogram.getValueAtPercentile(90),
    p99: histogram.getValueAtPercentile(99),
    p999: histogram.getValueAtPercentile(99.9),
    max: histogram.maxValue,
    mean: Math.round(histogram.mean),
  };
  histogram.destroy();
  return result;
}
