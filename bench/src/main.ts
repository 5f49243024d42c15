import path from 'node:path';
import { benchmarks } from './benchmarks';

// `npm run bench [names...] [--quick]`: runs the named benchmarks (all when none is named).
async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  const names = args.filter((a) => !a.startsWith('--'));
  const unknown = names.filter((n) => !benchmarks.some((b) => b.name === n));
  if (unknown.length > 0) {
    process.stderr.write(
      `unknown benchmark(s): ${unknown.join(', ')}; known: ${benchmarks.map((b) => b.name).join(', ')}\n`,
    );
    process.exit(2);
  }
  const distRoot = path.resolve(__dirname, '../..');
  const resultsDir = path.resolve(distRoot, '../bench/results');
  for (const benchmark of benchmarks.filter((b) => names.length === 0 || names.includes(b.name))) {
    process.stdout.write(`\n# ${benchmark.name}: ${benchmark.description}\n`);
    await benchmark.run({ distRoot, resultsDir, quick });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
