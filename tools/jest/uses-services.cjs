// Does a spec use the test helpers that reach the machine's PostgreSQL or Redis? Every connection a
// spec makes to them gets its address from one of two places: @fed/persistence/testing (the test
// databases) or testServiceUrls() of @fed/config. Follows the spec's relative imports and the
// `@fed/*/testing` entry points (not the libs' public indexes, which export everything).
const { existsSync, readFileSync, statSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const aliases = require('../../tsconfig.base.json').compilerOptions.paths;
const importPattern =
  /\bfrom\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)|\brequire\(\s*['"]([^'"]+)['"]\s*\)/g;
const helperPattern = /@fed\/persistence\/testing|\btestServiceUrls\b/;

function resolveImport(fromFile, specifier) {
  let base;
  if (specifier.startsWith('.')) base = path.resolve(path.dirname(fromFile), specifier);
  else if (/^@fed\/.+\/testing$/.test(specifier) && aliases[specifier]) base = path.join(root, aliases[specifier][0]);
  else return undefined;
  return [base, `${base}.ts`, path.join(base, 'index.ts')].find((file) => existsSync(file) && statSync(file).isFile());
}

/** The first file (relative to the repository) through which `specFile` uses those helpers, or undefined. */
function serviceHelperUse(specFile) {
  const seen = new Set();
  const pending = [path.resolve(root, specFile)];
  while (pending.length > 0) {
    const file = pending.pop();
    if (seen.has(file) || !file.endsWith('.ts')) continue;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    if (helperPattern.test(source)) return path.relative(root, file);
    for (const match of source.matchAll(importPattern)) {
      const next = resolveImport(file, match[1] ?? match[2] ?? match[3]);
      if (next) pending.push(next);
    }
  }
  return undefined;
}

module.exports = { serviceHelperUse };
