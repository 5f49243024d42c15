// Rewrites the README's configuration table from libs/config (a test fails while they differ).
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const { renderConfigTable } = require(path.join(root, 'dist/libs/config/src'));
const readme = path.join(root, 'README.md');
const text = readFileSync(readme, 'utf8');
const updated = text.replace(
  /<!-- config-table:start -->\n[\s\S]*?\n<!-- config-table:end -->/,
  `<!-- config-table:start -->\n${renderConfigTable()}\n<!-- config-table:end -->`,
);
writeFileSync(readme, updated);
console.log(updated === text ? 'README configuration table already up to date' : 'README configuration table updated');
