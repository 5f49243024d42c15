// `npm test`: the services check, then formatting, lint, type check and every test.
// Stops at the first failing step; ends with a plain "N passed, N failed" line.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { checkServices } = require('./check-services.cjs');
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

// npm puts node_modules/.bin first on PATH, so `node` here is the runtime package of devDependencies.
console.log(`== node ${process.version} (${process.execPath})`);

const problems = await checkServices();
if (problems.length > 0) {
  console.error(`npm test needs PostgreSQL and Redis on this machine.\n  ${problems.join('\n  ')}`);
  process.exit(2);
}

function step(title, command, args) {
  const started = Date.now();
  console.log(`\n== ${title}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, NX_DAEMON: 'false' } });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) {
    console.error(`\n${title} failed after ${seconds}s`);
    return false;
  }
  console.log(`${title}: ok in ${seconds}s`);
  return true;
}

const passArgs = process.argv.slice(2);
const ok =
  step('format (prettier --check)', bin('prettier'), ['--check', '--log-level', 'warn', '.']) &&
  // The module-boundary lint rule reads Nx's cached project graph and skips itself without one.
  step('project graph (nx)', bin('nx'), ['show', 'projects']) &&
  step('lint (eslint)', bin('eslint'), ['--max-warnings=0', '.']) &&
  step('type check (tsc)', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']);
if (!ok) process.exit(1);

const reportDir = mkdtempSync(path.join(tmpdir(), 'fed-jest-'));
const report = path.join(reportDir, 'report.json');
const testsOk = step('tests (jest)', bin('jest'), ['--ci', '--json', `--outputFile=${report}`, ...passArgs]);
let summary = 'tests: 0 passed, 0 failed';
try {
  const results = JSON.parse(readFileSync(report, 'utf8'));
  summary = `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed`;
  if (results.numPendingTests > 0) summary += `, ${results.numPendingTests} skipped`;
} catch {
  // Jest did not write a report (it failed before running); the exit code says so.
}
rmSync(reportDir, { recursive: true, force: true });
console.log(`\n${summary}`);
// Not process.exit(): Node 24 can deadlock in it while V8 compiles in the background (libs/server end-process.ts).
process.exitCode = testsOk ? 0 : 1;
