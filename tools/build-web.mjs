// Builds the web app (apps/web, Vite) into dist/web, only when its sources or the lock file changed since
// the last build (a hash of them is kept beside the output), so a warm `npm start` does not rebuild it.
// Built into a fresh directory and renamed into place: processes building at once never see half a build.
import { createHash } from 'node:crypto';
import { readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const appRoot = path.join(root, 'apps/web');
const outDir = path.join(root, 'dist/web');
const hashFile = path.join(outDir, '.source-hash');

async function sourceHash() {
  const hash = createHash('sha256');
  const files = (await readdir(appRoot, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => !file.includes(`${path.sep}node_modules${path.sep}`))
    .sort();
  for (const file of [...files, path.join(root, 'package-lock.json')]) {
    hash
      .update(path.relative(root, file))
      .update('\0')
      .update(await readFile(file))
      .update('\0');
  }
  return hash.digest('hex');
}

export async function buildWeb({ force = false } = {}) {
  const started = Date.now();
  const hash = await sourceHash();
  const built = await readFile(hashFile, 'utf8').catch(() => '');
  if (!force && built === hash) return { built: false, ms: Date.now() - started };
  // Always the production build (React's development build is twice the size): jest runs this with NODE_ENV=test.
  process.env.NODE_ENV = 'production';
  const { build } = await import('vite');
  const staging = `${outDir}.${process.pid}.${Date.now()}`;
  await build({
    configFile: path.join(appRoot, 'vite.config.mts'),
    logLevel: 'warn',
    build: { outDir: staging, emptyOutDir: true },
  });
  await writeFile(path.join(staging, '.source-hash'), hash);
  const old = `${outDir}.old.${process.pid}.${Date.now()}`;
  await rename(outDir, old).catch(() => undefined);
  await rename(staging, outDir).catch(async (error) => {
    // Another process put its build in place first: same sources, so keep that one.
    await rm(staging, { recursive: true, force: true });
    if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
  });
  await rm(old, { recursive: true, force: true });
  return { built: true, ms: Date.now() - started };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { built, ms } = await buildWeb({ force: process.argv.includes('--force') });
  console.log(built ? `web: built in ${ms} ms` : `web: up to date (${ms} ms)`);
}
