import autocannon from 'autocannon';

export interface ThroughputResult {
  connections: number;
  requestsPerSecond: number;
  /** Milliseconds, from autocannon's HDR histogram. */
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** Many keep-alive connections as fast as the server answers (autocannon, on loopback). */
export async function measureThroughput(
  url: string,
  options: {
    connections: number;
    durationSeconds: number;
    /** Requests per second for the whole run (open load); absent: as fast as the server answers. */
    overallRate?: number;
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string;
  },
): Promise<ThroughputResult> {
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.durationSeconds,
    pipelining: 1,
    ...(options.overallRate !== undefined ? { overallRate: options.overallRate } : {}),
    ...(options.method ? { method: options.method } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
  return {
    connections: options.connections,
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}
