// Finds the specs of the unit tier by running them as that tier does: with PostgreSQL and Redis at a
// closed port and without the template database. A spec joins when every test of it passes in under
// SECONDS_PER_FILE; one that uses the database or Redis test helpers is not tried.
//   node tools/jest/unit-specs.mjs            tries the specs outside the list, prints what would join
//   node tools/jest/unit-specs.mjs --all      tries every spec (also prints listed specs that no longer qualify)
//   add --write to rewrite tools/jest/unit-specs.txt
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

const SECONDS_PER_FILE = 5;
const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const listFile = path.join(root, 'tools/jest/unit-specs.txt');
const { serviceHelperUse } = require('./uses-services.cjs');
const { unreachableServices } = require('./unreachable-services.cjs');
const [unit] = require('../../jest.config.cjs').projects;

const all = process.argv.includes('--all');
const write = process.argv.includes('--write');

function specsUnder(dir) {
  return readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.spec.ts'))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
    .filter((file) => !file.split(path.sep).includes('node_modules'));
}

const text = readFileSync(listFile, 'utf8');
const header = text.split('\n').filter((line) => line.startsWith('#'));
const listed = text.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
const specs = ['apps', 'libs', 'deploy', 'bench', 'tools'].flatMap(specsUnder).sort();
const candidates = specs.filter((file) => (all || !listed.includes(file)) && !serviceHelperUse(file));

const escape = (file) => `^${path.join(root, file).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
const dir = mkdtempSync(path.join(tmpdir(), 'fed-unit-specs-'));
const report = path.join(dir, 'report.json');
console.log(`trying ${candidates.length} specs with PostgreSQL and Redis unreachable`);
// node_modules/.bin first, as under npm: the specs and their child processes run on the project's Node.
const bin = path.join(root, 'node_modules/.bin');
const run = spawnSync(
  path.join(bin, 'jest'),
  [
    '--ci',
    '--json',
    `--outputFile=${report}`,
    '--config',
    JSON.stringify({ ...unit, testRegex: candidates.map(escape) }),
  ],
  {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, ...unreachableServices, PATH: `${bin}${path.delimiter}${process.env.PATH}` },
  },
);
let results;
try {
  results = JSON.parse(readFileSync(report, 'utf8')).testResults;
} catch {
  console.error(`jest wrote no report:\n${run.stderr}`);
  process.exit(1);
}
rmSync(dir, { recursive: true, force: true });

const qualifies = new Set();
for (const result of results) {
  const file = path.relative(root, result.name);
  const seconds = (result.endTime - result.startTime) / 1000;
  const passed = result.status === 'passed' && result.assertionResults.every((test) => test.status === 'passed');
  if (passed && seconds < SECONDS_PER_FILE) qualifies.add(file);
  else console.log(`  not unit: ${file} (${passed ? `${seconds.toFixed(1)}s` : 'fails without the services'})`);
}
const next = [...new Set([...listed.filter((file) => !all || qualifies.has(file)), ...qualifies])]
  .filter((file) => specs.includes(file))
  .sort();
for (const file of next.filter((f) => !listed.includes(f))) console.log(`  + ${file}`);
for (const file of listed.filter((f) => !next.includes(f))) console.log(`  - ${file}`);
if (write) writeFileSync(listFile, [...header, ...next, ''].join('\n'));
console.log(
  `${next.length} unit specs${write ? `, written to ${path.relative(root, listFile)}` : ' (add --write to keep them)'}`,
);
