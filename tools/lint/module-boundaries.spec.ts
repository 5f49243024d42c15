import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

// The boundary rule skips itself silently when Nx has no project graph; this proves it is live
// and forbids what the design forbids.
const root = path.resolve(__dirname, '../..');

interface Probe {
  filePath: string;
  code: string;
}

// ESLint's Node API in one child process for every probe (its config loader needs dynamic import,
// which Jest's VM does not offer; one CLI run per probe would take seconds each).
const linter = `
import { readFileSync } from 'node:fs';
import { ESLint } from 'eslint';
const probes = JSON.parse(readFileSync(0, 'utf8'));
const eslint = new ESLint({ cwd: process.cwd() });
const errors = [];
for (const { filePath, code } of probes) {
  const [result] = await eslint.lintText(code, { filePath });
  errors.push(result.messages.filter((m) => ['@nx/enforce-module-boundaries', 'no-restricted-imports', 'web/layers'].includes(m.ruleId)).map((m) => m.message));
}
console.log(JSON.stringify(errors));
`;

function node(script: string, input = ''): string {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    input,
    encoding: 'utf8',
    env: { ...process.env, NX_DAEMON: 'false' },
  });
  if (run.status !== 0) throw new Error(`node failed: ${run.stderr}`);
  return run.stdout;
}

/** The boundary rule's messages for each probe. */
function lint(probes: Probe[]): string[][] {
  return JSON.parse(node(linter, JSON.stringify(probes.map((p) => ({ ...p, filePath: path.join(root, p.filePath) })))));
}

const importing = (lib: string) => `import * as probe from '${lib}';\nexport const x = probe;\n`;

function projectTags(dir: string): Record<string, string[]> {
  const tags: Record<string, string[]> = {};
  for (const name of readdirSync(path.join(root, dir))) {
    const file = path.join(root, dir, name, 'project.json');
    try {
      tags[name] = (JSON.parse(readFileSync(file, 'utf8')) as { tags?: string[] }).tags ?? [];
    } catch {
      // not a project folder
    }
  }
  return tags;
}

const libTags = projectTags('libs');
const domainLibs = Object.keys(libTags)
  .filter((name) => libTags[name].includes('type:domain'))
  .sort();
const domainEdges = JSON.parse(
  node("const { domainEdges } = await import('./eslint.config.mjs'); console.log(JSON.stringify(domainEdges));"),
) as Record<string, string[]>;
const edges = domainLibs.flatMap((from) => domainLibs.filter((to) => to !== from).map((to) => [from, to]));
const allowed = edges.filter(([from, to]) => domainEdges[from]?.includes(to));
const forbidden = edges.filter(([from, to]) => !domainEdges[from]?.includes(to));

const layerProbes: (Probe & { name: string })[] = [
  {
    name: 'forbids contracts from depending on any other lib',
    filePath: 'libs/contracts/src/probe.ts',
    code: importing('@fed/config'),
  },
  {
    name: 'forbids an infrastructure lib from importing an app',
    filePath: 'libs/bus/src/probe.ts',
    code: importing('@fed/apps/chat-service'),
  },
  {
    name: 'forbids one service app from importing another',
    filePath: 'apps/chat-service/src/probe.ts',
    code: importing('@fed/apps/llm-gateway'),
  },
  {
    name: 'allows an app to use infrastructure libs',
    filePath: 'apps/chat-service/src/probe.ts',
    code: importing('@fed/server'),
  },
  {
    name: 'allows a domain lib to use infrastructure libs',
    filePath: 'libs/memory/src/probe.ts',
    code: importing('@fed/persistence'),
  },
  {
    name: "keeps the identity library's inner surface to libs/sign-in",
    filePath: 'apps/admin-service/src/probe.ts',
    code: importing('@fed/identity/internal'),
  },
  {
    name: 'lets libs/sign-in build on the identity library',
    filePath: 'libs/sign-in/src/probe.ts',
    code: importing('@fed/identity/internal'),
  },
  {
    name: 'forbids a web feature from importing another',
    filePath: 'apps/web/src/features/chat/probe.ts',
    code: importing('../conversations/api'),
  },
  {
    name: 'forbids the web lib from importing a feature or the app',
    filePath: 'apps/web/src/lib/probe.ts',
    code: `${importing('../features/chat/Chat')}import * as app from '../app/App';\nexport const y = app;\n`,
  },
  {
    name: 'lets a web feature use the lib and its own files',
    filePath: 'apps/web/src/features/chat/components/probe.ts',
    code: `${importing('../../../lib/api')}import * as own from '../stream/turn-view';\nexport const y = own;\n`,
  },
];

describe('module boundaries', () => {
  let errors: string[][];

  beforeAll(() => {
    execFileSync(path.join(root, 'node_modules/.bin/nx'), ['show', 'projects'], {
      cwd: root,
      env: { ...process.env, NX_DAEMON: 'false' },
      stdio: 'ignore',
    });
    errors = lint([
      ...layerProbes,
      ...edges.map(([from, to]) => ({ filePath: `libs/${from}/src/probe.ts`, code: importing(`@fed/${to}`) })),
    ]);
  }, 120_000);

  const layerErrors = (name: string) => errors[layerProbes.findIndex((p) => p.name === name)];
  const edgeErrors = (from: string, to: string) =>
    errors[layerProbes.length + edges.findIndex(([f, t]) => f === from && t === to)];

  it('forbids contracts from depending on any other lib', () => {
    expect(layerErrors('forbids contracts from depending on any other lib')).toEqual([
      expect.stringContaining('type:contracts'),
    ]);
  });

  it('forbids an infrastructure lib from importing an app', () => {
    expect(layerErrors('forbids an infrastructure lib from importing an app').length).toBeGreaterThan(0);
  });

  it('forbids one service app from importing another', () => {
    expect(layerErrors('forbids one service app from importing another')).toEqual([
      expect.stringContaining('Imports of apps are forbidden'),
    ]);
  });

  it('allows an app to use infrastructure libs', () => {
    expect(layerErrors('allows an app to use infrastructure libs')).toEqual([]);
  });

  it('allows a domain lib to use infrastructure libs', () => {
    expect(layerErrors('allows a domain lib to use infrastructure libs')).toEqual([]);
  });

  it("keeps the identity library's inner surface to libs/sign-in", () => {
    expect(layerErrors("keeps the identity library's inner surface to libs/sign-in")).toEqual([
      expect.stringContaining("Only libs/sign-in uses the identity library's inner surface"),
    ]);
    expect(layerErrors('lets libs/sign-in build on the identity library')).toEqual([]);
  });

  it("keeps the web app's flow one way: app -> features -> lib, no feature importing another", () => {
    expect(layerErrors('forbids a web feature from importing another')).toEqual([
      expect.stringContaining('features/chat may not import features/conversations'),
    ]);
    expect(layerErrors('forbids the web lib from importing a feature or the app')).toEqual([
      expect.stringContaining('lib may not import features/chat'),
      expect.stringContaining('lib may not import app'),
    ]);
    expect(layerErrors('lets a web feature use the lib and its own files')).toEqual([]);
  });

  it('gives every domain lib its own scope tag and a row in the table of eslint.config.mjs', () => {
    expect(domainLibs).toEqual(expect.arrayContaining(['agent', 'conversations', 'identity', 'protocols']));
    for (const lib of domainLibs) expect(libTags[lib]).toContain(`scope:${lib}`);
    expect(Object.keys(domainEdges).sort()).toEqual(domainLibs);
    expect(forbidden).toContainEqual(['conversations', 'agent']);
    expect(forbidden).toContainEqual(['identity', 'sign-in']);
  });

  it.each(forbidden)('refuses the domain edge %s -> %s', (from, to) => {
    expect(edgeErrors(from, to)).toEqual([expect.stringContaining(`A project tagged with "scope:${from}" can only`)]);
  });

  it.each(allowed)('allows the domain edge %s -> %s', (from, to) => {
    expect(edgeErrors(from, to)).toEqual([]);
  });
});
