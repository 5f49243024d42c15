import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

// The unit tier's list stays true: each listed spec exists and keeps away from the database and
// Redis test helpers, and Jest's two projects split the specs with none left out or run twice.
const root = path.resolve(__dirname, '../..');
const listFile = 'tools/jest/unit-specs.txt';
const listed = readFileSync(path.join(root, listFile), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '' && !line.startsWith('#'));

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { serviceHelperUse } = require('./uses-services.cjs') as {
  serviceHelperUse: (specFile: string) => string | undefined;
};

function specFiles(): string[] {
  return ['apps', 'libs', 'deploy', 'bench', 'tools']
    .flatMap((dir) =>
      readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' }).map((f) => path.join(dir, f)),
    )
    .filter((file) => file.endsWith('.spec.ts') && !file.split(path.sep).includes('node_modules'))
    .sort();
}

function listTests(args: string[]): string[] {
  const run = spawnSync(path.join(root, 'node_modules/.bin/jest'), ['--listTests', '--json', ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (run.status !== 0) throw new Error(`jest --listTests failed: ${run.stderr}`);
  return (JSON.parse(run.stdout) as string[]).map((file) => path.relative(root, file)).sort();
}

describe('the unit tier', () => {
  it('lists existing spec files, sorted, each once', () => {
    expect(listed.filter((file) => !file.endsWith('.spec.ts') || !existsSync(path.join(root, file)))).toEqual([]);
    expect(listed).toEqual([...new Set(listed)].sort());
  });

  it('lists no spec that uses the database or Redis test helpers', () => {
    const offending = listed.flatMap((file) => {
      const via = serviceHelperUse(file);
      return via ? [`${file} reaches PostgreSQL or Redis through ${via}: take it off ${listFile}`] : [];
    });
    expect(offending).toEqual([]);
  });

  it('runs each spec in exactly one tier', () => {
    const everything = specFiles();
    const unit = listTests(['--selectProjects', 'unit']);
    const integration = listTests(['--selectProjects', 'integration']);
    expect(unit).toEqual([...listed].sort());
    expect(integration.filter((file) => unit.includes(file))).toEqual([]);
    expect([...unit, ...integration].sort()).toEqual(everything);
  }, 120_000);
});
