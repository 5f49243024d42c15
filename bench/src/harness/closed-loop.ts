import http from 'node:http';
import { type LatencyResult, type RequestShape, microsecondHistogram, microsecondsSince, summarize } from './latency';

/** A streamed chat-completion chunk that carries text: `"content":"` followed by something. */
const CONTENT = /"content"\s*:\s*"[^"]/;
/** Kept from the previous chunk, so a marker split across two chunks is still seen. */
const CARRY = 32;

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

function timedRequest(
  agent: http.Agent,
  target: URL,
  request: RequestShape | undefined,
  watchContent: boolean,
): Promise<Timing> {
  return new Promise<Timing>((resolve, reject) => {
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        agent,
        method: request?.method ?? 'GET',
        headers: request?.headers,
      },
      (res) => {
        let firstContentAt: number | null = null;
        let carry = '';
        res.on('data', (chunk: Buffer) => {
          if (!watchContent || firstContentAt !== null) return;
          const text = carry + chunk.toString('latin1');
          if (CONTENT.test(text)) firstContentAt = performance.now();
          else carry = text.slice(-CARRY);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, firstContentAt }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(request?.body);
  });
}

/**
 * Concurrency 1, closed loop over one keep-alive connection (as `measureLatency`), that also counts
 * every request it sends, warm-up included, and, with `firstContent`, times the first streamed
 * chunk carrying text (time to first token) besides the whole answer. Any answer but 2xx, or a
 * stream without content, ends the run with an error.
 */
export async function measureClosedLoop(
  url: string,
  options: { durationMs: number; warmupMs: number; request?: RequestShape; firstContent?: boolean },
): Promise<ClosedLoopResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const target = new URL(url);
  const watch = options.firstContent === true;
  let sent = 0;
  let ok = 0;
  const once = async (): Promise<Timing> => {
    sent++;
    const timing = await timedRequest(agent, target, options.request, watch);
    if (timing.status < 200 || timing.status >= 300) throw new Error(`${url} answered ${timing.status}`);
    ok++;
    if (watch && timing.firstContentAt === null) throw new Error(`${url} streamed no content`);
    return timing;
  };
  try {
    const warmupEnd = performance.now() + options.warmupMs;
    while (performance.now() < warmupEnd) await once();

    const whole = microsecondHistogram(60);
    const first = watch ? microsecondHistogram(60) : null;
    const end = performance.now() + options.durationMs;
    let requests = 0;
    while (performance.now() < end) {
      const started = performance.now();
      const timing = await once();
      whole.recordValue(microsecondsSince(started));
      if (first && timing.firstContentAt !== null) {
        first.recordValue(Math.max(1, Math.round((timing.firstContentAt - started) * 1000)));
      }
      requests++;
    }
    return {
      latency: summarize(whole, requests),
      ...(first ? { firstContent: summarize(first, requests) } : {}),
      sent,
      ok,
    };
  } finally {
    agent.destroy();
  }
}
