import path from 'node:path';
import { type Row, printTable, writeResult } from '../harness/report';
import { machineLine, markdownTable, writeBetweenMarkers } from './report/reliability-doc';
import { NO_FIGURES, type ScenarioResult, scenarios } from './scenarios';

const USAGE = 'usage: faults [scenario...] [--quick] [--no-doc]';

const verdict = (result: ScenarioResult) => (result.skipped ? 'skipped' : result.pass ? 'pass' : 'FAIL');

function tableRows(results: ScenarioResult[]): (string | number)[][] {
  return results.map((result) => [
    result.title,
    result.row.turns,
    result.row.completed,
    result.row.errorChunks,
    result.row.cut,
    result.row.notStarted,
    result.row.hanging,
    result.row.lost,
    result.row.duplicated,
    verdict(result),
    result.skipped ?? result.notes.join('; '),
  ]);
}

const COLUMNS = [
  'Scenario',
  'Turns',
  'Completed',
  'Ended with an error chunk',
  'Cut (no final chunk)',
  'Not started',
  'Hanging (must be 0)',
  'Lost (must be 0)',
  'Duplicated (must be 0)',
  'Result',
  'Notes',
];

/**
 * `npm run faults [names...] [--quick] [--no-doc]`: the fault-injection scenarios against the distributed
 * mode (each service a process from dist). A full run of every scenario rewrites the results table of
 * docs/reliability.md; exit code 1 when a scenario failed.
 */
async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  const noDoc = args.includes('--no-doc');
  const flags = args.filter((a) => a.startsWith('--'));
  const names = args.filter((a) => !a.startsWith('--'));
  const unknownFlags = flags.filter((f) => f !== '--quick' && f !== '--no-doc');
  const unknown = names.filter((n) => !scenarios.some((s) => s.name === n));
  if (unknown.length > 0 || unknownFlags.length > 0) {
    process.stderr.write(
      `unknown: ${[...unknown, ...unknownFlags].join(', ')}\n${USAGE}\nscenarios: ${scenarios.map((s) => s.name).join(', ')}\n`,
    );
    process.exit(2);
  }
  const distRoot = path.resolve(__dirname, '../../..');
  const chosen = scenarios.filter((s) => names.length === 0 || names.includes(s.name));
  const results: ScenarioResult[] = [];
  const startedAt = Date.now();
  for (const scenario of chosen) {
    process.stdout.write(`\n# ${scenario.name}: ${scenario.title}${quick ? ' (quick)' : ''}\n`);
    const context = { distRoot, quick, log: (line: string) => process.stdout.write(`${line}\n`) };
    let result: ScenarioResult;
    try {
      result = await scenario.run(context);
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      process.stderr.write(`${message}\n`);
      result = {
        name: scenario.name,
        title: scenario.title,
        row: NO_FIGURES,
        pass: false,
        notes: [`the scenario broke: ${message.split('\n')[0]}`],
        seconds: 0,
      };
    }
    results.push(result);
    process.stdout.write(
      `  ${verdict(result)} in ${result.seconds} s${result.notes.length ? `: ${result.notes.join('; ')}` : ''}\n`,
    );
  }
  const rows: Row[] = tableRows(results).map((cells) =>
    Object.fromEntries(COLUMNS.slice(0, -1).map((column, i) => [column, cells[i] as string | number])),
  );
  printTable('fault injection', rows);
  const minutes = ((Date.now() - startedAt) / 60_000).toFixed(1);
  process.stdout.write(`took ${minutes} min\n`);

  if (!noDoc && !quick && names.length === 0) {
    const doc = path.resolve(distRoot, '../docs/reliability.md');
    const content = [
      `Last run: ${machineLine()}; \`npm run faults\`, ${minutes} min.`,
      '',
      markdownTable(COLUMNS, tableRows(results)),
    ].join('\n');
    writeBetweenMarkers(doc, 'faults:results', content, '## Fault injection');
    const file = writeResult(path.resolve(distRoot, '../bench/results'), 'faults', { minutes, results });
    process.stdout.write(`written ${doc} and ${file}\n`);
  }
  if (results.some((result) => !result.pass)) process.exit(1);
}

// Ctrl-C: exit through process.exit, so that the servers the run started are stopped ('exit' handlers).
process.once('SIGINT', () => process.exit(130));
process.once('SIGTERM', () => process.exit(143));

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
