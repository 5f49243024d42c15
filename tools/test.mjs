// `npm test`: the services check, then formatting, lint, type check, the unit tier of tests and the
// integration tier (jest.config.cjs). `npm run test:unit` (--unit): the unit tier alone, no services.
// Stops at the first failing step; ends with a plain "N passed, N failed" line over both tiers.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { checkServices } = require('./check-services.cjs');
const { unreachableServices } = require('./jest/unreachable-services.cjs');
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

// npm puts node_modules/.bin first on PATH, so `node` here is the runtime package of devDependencies.
console.log(`== node ${process.version} (${process.execPath})`);

const unitOnly = process.argv.includes('--unit');
const passArgs = process.argv.slice(2).filter((arg) => arg !== '--unit');

if (!unitOnly) {
  const problems = await checkServices();
  if (problems.length > 0) {
    console.error(`npm test needs PostgreSQL and Redis on this machine.\n  ${problems.join('\n  ')}`);
    process.exit(2);
  }
}

function step(title, command, args, env = {}) {
  const started = Date.now();
  console.log(`\n== ${title}`);
  const result = spawnSync(command, args, {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, NX_DAEMON: 'false', ...env },
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) {
    console.error(`\n${title} failed after ${seconds}s`);
    return false;
  }
  console.log(`${title}: ok in ${seconds}s`);
  return true;
}

const ok =
  unitOnly ||
  (step('format (prettier --check)', bin('prettier'), ['--check', '--log-level', 'warn', '.']) &&
    // The module-boundary lint rule reads Nx's cached project graph and skips itself without one.
    step('project graph (nx)', bin('nx'), ['show', 'projects']) &&
    step('lint (eslint)', bin('eslint'), ['--max-warnings=0', '.']) &&
    step('type check (tsc)', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']) &&
    step('type check of the web app (tsc)', bin('tsc'), ['-p', 'apps/web/tsconfig.json']));
if (!ok) process.exit(1);

const tiers = [
  // No service to share, so every core; the services unreachable for child processes too.
  { name: 'unit', args: ['--maxWorkers=100%'], env: unreachableServices },
  ...(unitOnly ? [] : [{ name: 'integration', args: [], env: {} }]),
];
const reportDir = mkdtempSync(path.join(tmpdir(), 'fed-jest-'));
const totals = { passed: 0, failed: 0, skipped: 0 };
const timings = [];
let testsOk = true;
for (const tier of tiers) {
  const report = path.join(reportDir, `${tier.name}.json`);
  const started = Date.now();
  // A path given to `npm test -- <path>` may match no spec of one tier.
  const args = ['--ci', '--json', `--outputFile=${report}`, ...(passArgs.length > 0 ? ['--passWithNoTests'] : [])];
  testsOk = step(
    `tests, ${tier.name} tier (jest)`,
    bin('jest'),
    [...args, ...tier.args, ...passArgs, '--selectProjects', tier.name],
    tier.env,
  );
  let counted = '';
  let results;
  try {
    results = JSON.parse(readFileSync(report, 'utf8'));
    totals.passed += results.numPassedTests;
    totals.skipped += results.numPendingTests;
    counted = `, ${results.numTotalTests} tests in ${results.numTotalTestSuites} files`;
  } catch {
    // Jest did not write a report (it failed before running); the exit code says so.
  }
  const crashed = testsOk ? [] : workerCrashes(results);
  if (crashed.length > 0) {
    // A known crash of V8 itself (Node 24, `Check failed: jit_page.has_value()` and the like, nodejs/node#64500:
    // its JIT page registry under WebAssembly churn, here PGlite's), not of a test: the files whose worker died
    // run once more, in a fresh worker. An assertion that failed is never retried.
    console.log(`\n== ${tier.name} tier: a jest worker was killed by a signal; again: ${crashed.join(' ')}`);
    const retryReport = path.join(reportDir, `${tier.name}-retry.json`);
    testsOk = step(
      `tests, ${tier.name} tier, the crashed files again (jest)`,
      bin('jest'),
      // The files before --selectProjects, which takes every word after it as a project's name.
      ['--ci', '--json', `--outputFile=${retryReport}`, ...tier.args, ...crashed, '--selectProjects', tier.name],
      tier.env,
    );
    try {
      const retried = JSON.parse(readFileSync(retryReport, 'utf8'));
      totals.passed += retried.numPassedTests;
      totals.skipped += retried.numPendingTests;
      results = { ...results, numFailedTests: retried.numFailedTests };
    } catch {
      // As above.
    }
  }
  totals.failed += results?.numFailedTests ?? 0;
  timings.push(
    `${tier.name} tier: ${((Date.now() - started) / 1000).toFixed(1)}s${counted}${testsOk ? '' : ', failed'}`,
  );
  if (!testsOk) break;
}
rmSync(reportDir, { recursive: true, force: true });

/** The spec files that failed only because their worker process died of a signal (no assertion failed). */
function workerCrashes(results) {
  if (!results || results.numFailedTests > 0) return [];
  const failed = results.testResults.filter((file) => file.status === 'failed');
  const crash =
    /A jest worker process \(pid=\d+\) was terminated by another process: signal=SIG(TRAP|SEGV|ILL|BUS|ABRT)/;
  if (failed.length === 0 || failed.length > 3 || !failed.every((file) => crash.test(file.message ?? ''))) return [];
  return failed.map((file) => path.relative(root, file.name));
}
let summary = `tests: ${totals.passed} passed, ${totals.failed} failed`;
if (totals.skipped > 0) summary += `, ${totals.skipped} skipped`;
console.log(`\n${timings.join('\n')}\n\n${summary}`);
// Not process.exit(): Node 24 can deadlock in it while V8 compiles in the background (libs/server end-process.ts).
process.exitCode = testsOk ? 0 : 1;
