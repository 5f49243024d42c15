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

export interface RequestShape {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** A histogram of microseconds, from 1 µs up to `highestSeconds`, three significant digits. */
export function microsecondHistogram(highestSeconds: number): hdr.Histogram {
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: highestSeconds * 1_000_000,
    numberOfSignificantValueDigits: 3,
  });
}

/** Microseconds since `startedMs` (a `performance.now()` reading), at least 1. */
export function microsecondsSince(startedMs: number): number {
  return Math.max(1, Math.round((performance.now() - startedMs) * 1000));
}

/** The percentiles of a histogram, which is then released. */
export function summarize(histogram: hdr.Histogram, requests: number): LatencyResult {
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

/** node:http options of a request to `target` over `agent`. */
export function requestOptions(
  agent: http.Agent,
  target: URL,
  request: RequestShape | undefined,
  extraHeaders: http.OutgoingHttpHeaders = {},
): http.RequestOptions {
  return {
    host: target.hostname,
    port: target.port,
    path: target.pathname + target.search,
    agent,
    method: request?.method ?? 'GET',
    headers: { ...extraHeaders, ...request?.headers },
  };
}

/**
 * Sends one request and reads the whole answer (each body chunk shown to `onChunk`); resolves with its
 * status, rejects on a network error.
 */
export function sendRequest(
  agent: http.Agent,
  target: URL,
  request: RequestShape | undefined,
  onChunk?: (chunk: Buffer) => void,
): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const req = http.request(requestOptions(agent, target, request), (res) => {
      res.on('data', onChunk ?? (() => undefined));
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(request?.body);
  });
}

/**
 * Concurrency 1, closed loop over one keep-alive connection: each request is sent when the previous
 * answer has been read, and its time recorded in microseconds in an HDR histogram.
 */
export async function measureLatency(
  url: string,
  options: { durationMs: number; warmupMs: number; request?: RequestShape },
): Promise<LatencyResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const target = new URL(url);
  const once = async () => {
    const status = await sendRequest(agent, target, options.request);
    if (status !== 200) throw new Error(`status ${status}`);
  };

  const warmupEnd = performance.now() + options.warmupMs;
  while (performance.now() < warmupEnd) await once();

  const histogram = microsecondHistogram(60);
  const end = performance.now() + options.durationMs;
  let requests = 0;
  while (performance.now() < end) {
    const started = performance.now();
    await once();
    histogram.recordValue(microsecondsSince(started));
    requests++;
  }
  agent.destroy();
  return summarize(histogram, requests);
}
