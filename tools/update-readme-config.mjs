// Rewrites the tables rendered from libs/config: the README's configuration table and
// docs/configuration.md's table of what each app requires (tests fail while they differ).
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const { renderAppRequirements, renderConfigTable } = require(path.join(root, 'dist/libs/config/src'));

function rewrite(file, marker, table) {
  const text = readFileSync(path.join(root, file), 'utf8');
  const updated = text.replace(
    new RegExp(`<!-- ${marker}:start -->\\n[\\s\\S]*?\\n<!-- ${marker}:end -->`),
    `<!-- ${marker}:start -->\n${table}\n<!-- ${marker}:end -->`,
  );
  writeFileSync(path.join(root, file), updated);
  console.log(updated === text ? `${file}: ${marker} already up to date` : `${file}: ${marker} updated`);
}

rewrite('README.md', 'config-table', renderConfigTable());
rewrite('docs/configuration.md', 'app-requirements', renderAppRequirements());
