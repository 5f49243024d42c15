import type { ScriptedUpstreamOptions } from './scripted-upstream';

export const UPSTREAM_USAGE = 'usage: main.js [--port N] [--host H] [--latency-ms N]';

const FLAGS: Record<string, keyof ScriptedUpstreamOptions> = {
  '--port': 'port',
  '--host': 'host',
  '--latency-ms': 'latencyMs',
};

export function parseUpstreamArgs(argv: readonly string[]): ScriptedUpstreamOptions {
  // Benchmarks never read `requests`; recording would only grow memory.
  const options: ScriptedUpstreamOptions = { recordRequests: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const equals = arg.indexOf('=');
    const flag = equals === -1 ? arg : arg.slice(0, equals);
    const option = FLAGS[flag];
    if (option === undefined) throw new Error(`unknown argument ${arg}\n${UPSTREAM_USAGE}`);
    const value = equals === -1 ? argv[++i] : arg.slice(equals + 1);
    if (value === undefined || value === '') throw new Error(`${flag} needs a value\n${UPSTREAM_USAGE}`);
    if (option === 'host') {
      options.host = value;
      continue;
    }
    const number = Number(value);
    if (!Number.isInteger(number) || number < 0) throw new Error(`${flag} must be a whole number, got ${value}`);
    if (option === 'port') options.port = number;
    else options.latencyMs = number;
  }
  return options;
}
