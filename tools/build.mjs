// Compiles every app, lib and benchmark to dist/ with SWC (type checking is `npm run typecheck`).
// Incremental by mtime so `npm start` stays fast on a warm checkout.
import { createRequire } from 'node:module';
import { mkdir, readdir, stat, writeFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { transformFile } from '@swc/core';

const require = createRequire(import.meta.url);
const { swcOptions, root } = require('./swc-options.cjs');

const sourceRoots = ['apps', 'libs', 'bench'];
const outRoot = path.join(root, 'dist');
const skip = (name) => name.endsWith('.spec.ts') || name.endsWith('.d.ts');

async function* walk(dir) {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      // apps/web is the browser app: Vite builds it (tools/build-web.mjs).
      if (entry.name !== 'node_modules' && full !== path.join(root, 'apps', 'web')) yield* walk(full);
    } else if (entry.name.endsWith('.ts') && !skip(entry.name)) {
      yield full;
    }
  }
}

async function isFresh(source, target) {
  try {
    const [s, t] = await Promise.all([stat(source), stat(target)]);
    return t.mtimeMs >= s.mtimeMs;
  } catch {
    return false;
  }
}

async function build() {
  const started = Date.now();
  if (process.argv.includes('--clean')) await rm(outRoot, { recursive: true, force: true });
  const options = swcOptions();
  let compiled = 0;
  let total = 0;
  const jobs = [];
  for (const sourceRoot of sourceRoots) {
    for await (const file of walk(path.join(root, sourceRoot))) {
      total++;
      const relative = path.relative(root, file);
      const target = path.join(outRoot, relative.replace(/\.ts$/, '.js'));
      jobs.push(
        (async () => {
          if (await isFresh(file, target)) return;
          const output = await transformFile(file, { ...options, filename: file, outputPath: target });
          await mkdir(path.dirname(target), { recursive: true });
          const mapName = `${path.basename(target)}.map`;
          await writeFile(target, `${output.code}\n//# sourceMappingURL=${mapName}\n`);
          if (output.map) await writeFile(`${target}.map`, output.map);
          compiled++;
        })(),
      );
    }
  }
  await Promise.all(jobs);
  if (!process.env.BUILD_QUIET) {
    console.error(`build: ${compiled} of ${total} files compiled in ${Date.now() - started} ms`);
  }
}

build().catch((error) => {
  console.error(error);
  process.exit(1);
});
