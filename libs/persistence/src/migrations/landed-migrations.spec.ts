import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

// A database that ran a migration never runs it again, so an edit to a landed one reaches new
// installs only and the two drift apart.
const RULE = 'migrations that have landed never change: write a new migration';
const manifestFile = path.join(__dirname, 'landed-migrations.json');

interface Manifest {
  migrations: Record<string, string>;
  /** Files edited after they landed, before this check existed: the git check skips them. */
  editedAfterLanding: Record<string, string>;
}

const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest;
const files = readdirSync(__dirname)
  .filter((file) => /^\d{13}-.*\.ts$/.test(file) && !file.endsWith('.spec.ts'))
  .sort();
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const current = Object.fromEntries(files.map((file) => [file, sha256(readFileSync(path.join(__dirname, file)))]));

function git(args: string[]): Buffer {
  return execFileSync('git', args, {
    cwd: __dirname,
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
}

function inGitWorkTree(): boolean {
  try {
    return git(['rev-parse', '--is-inside-work-tree']).toString().trim() === 'true';
  } catch {
    return false;
  }
}

describe('landed migrations', () => {
  it('lists every migration file in landed-migrations.json', () => {
    const missing = files.filter((file) => !(file in manifest.migrations));
    const lines = missing.map((file) => `    "${file}": "${current[file]}",`).join('\n');
    if (missing.length > 0) {
      throw new Error(
        `New migration${missing.length > 1 ? 's' : ''}: add to "migrations" in ${path.basename(manifestFile)} ` +
          `(${RULE}; its line is added once, with the migration):\n${lines}`,
      );
    }
  });

  it('still has every migration it lists', () => {
    const removed = Object.keys(manifest.migrations).filter((file) => !(file in current));
    expect(removed.map((file) => `${file} was removed: ${RULE}`)).toEqual([]);
  });

  it('finds each listed migration as it landed', () => {
    const changed = files.filter((file) => file in manifest.migrations && manifest.migrations[file] !== current[file]);
    expect(changed.map((file) => `${file} changed: ${RULE}`)).toEqual([]);
  });

  // Also catches an edit whose author updated the manifest's hash to match.
  (inGitWorkTree() ? it : it.skip)('finds each migration as the commit that added it had it', () => {
    const relative = path.relative(git(['rev-parse', '--show-toplevel']).toString().trim(), __dirname);
    const log = git(['log', '--diff-filter=A', '--format=commit %H', '--name-only', '--', '.']).toString();
    const addedIn = new Map<string, string>();
    let commit = '';
    for (const line of log.split('\n')) {
      if (line.startsWith('commit ')) commit = line.slice('commit '.length);
      // Newest first: the last commit seen for a file is the one that first added it.
      else if (line.trim() !== '') addedIn.set(path.basename(line), commit);
    }
    const changed = files
      .filter((file) => addedIn.has(file) && !(file in manifest.editedAfterLanding))
      .filter((file) => sha256(git(['show', `${addedIn.get(file)}:${relative}/${file}`])) !== current[file]);
    expect(changed.map((file) => `${file} differs from ${addedIn.get(file)?.slice(0, 7)}: ${RULE}`)).toEqual([]);
  });

  it('names only real files as edited after landing', () => {
    expect(Object.keys(manifest.editedAfterLanding).filter((file) => !(file in current))).toEqual([]);
  });
});
