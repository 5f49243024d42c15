import autocannon from 'autocannon';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ThroughputResult } from './throughput';
import { wrkAvailable } from './wrk';

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

const luaString = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;

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
  options: {
    connections: number;
    durationSeconds: number;
    drainSeconds?: number;
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string;
  },
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
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fed-bench-wrk-'));
  try {
    const script = path.join(dir, 'drained.lua');
    const lines = [`wrk.method = ${luaString(options.method ?? 'GET')}`];
    if (options.body !== undefined) lines.push(`wrk.body = ${luaString(options.body)}`);
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      lines.push(`wrk.headers[${luaString(name)}] = ${luaString(value)}`);
    }
    writeFileSync(script, `${lines.join('\n')}\n${drainScript}`);
    const drainSeconds = options.drainSeconds ?? 1;
    const run = spawnSync(
      'wrk',
      [
        '-t1',
        `-c${options.connections}`,
        `-d${options.durationSeconds + drainSeconds}s`,
        '--latency',
        '-s',
        script,
        url,
        '--',
        String(options.durationSeconds * 1000),
      ],
      { encoding: 'utf8' },
    );
    if (run.status !== 0) throw new Error(`wrk failed: ${run.stderr}`);
    const out = run.stdout;
    const number = (pattern: RegExp) => Number(pattern.exec(out)?.[1] ?? 0);
    const millis = (percentile: string) => {
      const match = new RegExp(`^\\s+${percentile}%\\s+([\\d.]+)(us|ms|s)$`, 'm').exec(out);
      if (!match) return 0;
      const value = Number(match[1]);
      return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
    };
    const sent = /^fed-bench-sent (\d+)$/m.exec(out);
    if (!sent) throw new Error(`no request count in wrk's output: ${out}`);
    const answered = number(/^\s*(\d+) requests in /m);
    // wrk counts statuses above 399 as "Non-2xx or 3xx responses"; the servers here send no 1xx or 3xx.
    const non2xx = number(/Non-2xx or 3xx responses: (\d+)/);
    const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
    return {
      connections: options.connections,
      requestsPerSecond: Math.round(answered / options.durationSeconds),
      p50: millis('50'),
      p99: millis('99'),
      non2xx,
      errors: socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
      generator: 'wrk',
      durationSeconds: options.durationSeconds,
      sent: Number(sent[1]),
      answered,
      ok: answered - non2xx,
      drained: answered === Number(sent[1]),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
