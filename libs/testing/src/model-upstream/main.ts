import { ScriptedUpstream } from './scripted-upstream';
import { parseUpstreamArgs } from './upstream-args';

// For benchmarks: prints `listening <url>` once ready, closes on SIGTERM or SIGINT.
async function main(): Promise<void> {
  let options;
  try {
    options = parseUpstreamArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(2);
  }
  const upstream = await ScriptedUpstream.start(options);
  process.stdout.write(`listening ${upstream.url}\n`);
  const stop = () => void upstream.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
