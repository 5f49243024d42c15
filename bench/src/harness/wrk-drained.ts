import autocannon from 'autocannon';
import { type ThroughputResult } from './throughput';
import { type WrkRequest, runWrk, wrkAvailable } from './wrk';

export interface DrainedThroughputResult extends ThroughputResult {
  generator: 'wrk' | 'autocannon';
  durationSeconds: number;
  /** Requests written to the server. */
  sent: number;
  /** Answers read, any status. */
  answered: number;
  /** Answers read with a 2xx status. */
  ok: number;
  /**
   * True when every request sent was answered and read before the generator stopped (wrk); false
   * when the generator dropped the requests in flight at its stop (autocannon): the server may
   * still have answered those, unread.
   */
  drained: boolean;
}

/** Once past the deadline, each connection sends nothing more and waits (idle) for wrk's end. */
const drainScript = `
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_nsec; } fed_bench_timespec;
int clock_gettime(int clock_id, fed_bench_timespec *tp);
]]
local clock = ffi.new("fed_bench_timespec")
local function now_ms()
  ffi.C.clock_gettime(1, clock) -- CLOCK_MONOTONIC
  return tonumber(clock.tv_sec) * 1000 + tonumber(clock.tv_nsec) / 1e6
end

local prepared, deadline
sent = 0
verified = false

function init(args)
  prepared = wrk.format()
  deadline = now_ms() + tonumber(args[1])
end

function request()
  -- wrk calls request() once before the run to check it (script_verify_request): nothing is sent.
  if not verified then
    verified = true
    return prepared
  end
  if now_ms() < deadline then
    sent = sent + 1
    return prepared
  end
  -- Zero bytes: the connection sends nothing more, so no request is in flight when wrk stops.
  return ""
end

local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do
    total = total + thread:get("sent")
  end
  io.write(string.format("fed-bench-sent %d\\n", total))
end
`;

/**
 * Saturated throughput, as `measureSaturated` (wrk with one thread when installed), but drained:
 * requests are sent for `durationSeconds`, then none, and wrk runs `drainSeconds` more so that every
 * request sent is answered and read before it stops. So the server answered exactly `sent` requests,
 * and the client read every answer: counts to check a server's own records against (a plain wrk
 * run stops with up to one request per connection in flight, answered by the server or not).
 * Requests per second: answers over `durationSeconds`. Without wrk, autocannon, not drained.
 */
export async function measureSaturatedDrained(
  url: string,
  options: WrkRequest & { durationSeconds: number; drainSeconds?: number },
): Promise<DrainedThroughputResult> {
  if (!wrkAvailable()) {
    const result = await autocannon({
      url,
      connections: options.connections,
      duration: options.durationSeconds,
      pipelining: 1,
      ...(options.method ? { method: options.method } : {}),
      ...(options.headers ? { headers: options.headers } : {}),
      ...(options.body !== undefined ? { body: options.body } : {}),
    });
    const answered = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
    return {
      connections: options.connections,
      requestsPerSecond: Math.round(result.requests.average),
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors,
      generator: 'autocannon',
      durationSeconds: options.durationSeconds,
      sent: result.requests.sent,
      answered,
      ok: result['2xx'],
      drained: answered === result.requests.sent,
    };
  }
  const drainSeconds = options.drainSeconds ?? 1;
  const run = runWrk(url, options, options.durationSeconds + drainSeconds, drainScript, [
    String(options.durationSeconds * 1000),
  ]);
  const sent = /^fed-bench-sent (\d+)$/m.exec(run.out);
  if (!sent) throw new Error(`no request count in wrk's output: ${run.out}`);
  return {
    connections: options.connections,
    requestsPerSecond: Math.round(run.answered / options.durationSeconds),
    p50: run.p50,
    p99: run.p99,
    non2xx: run.non2xx,
    errors: run.errors,
    generator: 'wrk',
    durationSeconds: options.durationSeconds,
    sent: Number(sent[1]),
    answered: run.answered,
    // The servers here send no 1xx or 3xx.
    ok: run.answered - run.non2xx,
    drained: run.answered === Number(sent[1]),
  };
}
