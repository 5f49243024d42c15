import { readFileSync } from 'node:fs';
import path from 'node:path';

// `npm install` asks about every install script that `allowScripts` neither approves nor denies, at every
// install, in a warning a newcomer cannot judge: each one in the lock file is decided in package.json
// (docs/dependencies.md says why each is denied).
const root = path.resolve(__dirname, '..');
const read = (file: string) => JSON.parse(readFileSync(path.join(root, file), 'utf8')) as Record<string, unknown>;

describe('the install-script policy (allowScripts)', () => {
  const allowScripts = read('package.json').allowScripts as Record<string, boolean>;
  const packages = read('package-lock.json').packages as Record<
    string,
    { version?: string; hasInstallScript?: boolean }
  >;
  const withScripts = Object.entries(packages)
    .filter(([, entry]) => entry.hasInstallScript)
    .map(([place, entry]) => ({ name: place.slice(place.lastIndexOf('node_modules/') + 13), version: entry.version }));

  it('decides every install script of the locked tree, so npm asks about none', () => {
    expect(withScripts.length).toBeGreaterThan(0);
    const undecided = withScripts.filter(
      ({ name, version }) => allowScripts[`${name}@${version}`] === undefined && allowScripts[name] === undefined,
    );
    expect(undecided).toEqual([]);
  });

  it('approves only the Node runtime package, pinned to its version', () => {
    const approved = Object.entries(allowScripts).filter(([, allowed]) => allowed);
    const runtime = withScripts.find(({ name }) => name === 'node');
    expect(approved).toEqual([[`node@${runtime?.version}`, true]]);
  });
});
