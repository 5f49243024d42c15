import { contextSchemas, platformSchema } from '@fed/persistence';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

// Each library queries only the schemas it owns; another library's tables are read through that
// library's services, so renaming a column breaks the build where the column lives.
const root = path.resolve(__dirname, '../..');

/** lib -> the schemas it owns. A lib not named here owns none. */
const schemaOwners: Record<string, readonly string[]> = {
  agent: ['agent'],
  audit: ['audit'],
  conversations: ['conversations'],
  gateway: ['gateway'],
  identity: ['identity'],
  memory: ['memory'],
  persistence: [platformSchema],
  // One domain in two libraries (the directory and the sign-in side): the schema is the domain's.
  'sign-in': ['identity'],
};

/** Known crossings, each with its reason; the spec fails when one is gone, so the list cannot go stale. */
const exemptions: readonly { lib: string; file: string; schema: string; why: string }[] = [
  {
    lib: 'server',
    file: 'libs/server/src/access-log/access-log-writer.ts',
    schema: 'audit',
    why: 'every service writes its access log from the HTTP host, which sits below the audit library',
  },
  {
    lib: 'gateway',
    file: 'libs/gateway/src/keys/api-key.repository.ts',
    schema: 'identity',
    why: "a key's tenant must exist: one read of identity.tenants' id and name (never a write), since the gateway lib may not import identity; a port from identity is the better shape (left for the coherence work)",
  },
];

// Migrations create every schema's tables.
const exemptDirs = ['libs/persistence/src/migrations/'];

export interface Crossing {
  file: string;
  line: number;
  schema: string;
  text: string;
}

// Unquoted `schema.table` counts only in SQL-looking strings: config keys and signal areas
// (`agent.concurrency`, `gateway.routes`) share the spelling.
const SQL_WORDS = /\b(SELECT|INSERT|UPDATE|DELETE|FROM|JOIN|INTO|TABLE)\b/;

/** Where the string literals of `source` name a schema of `schemas` the lib does not own. */
export function crossSchemaQueries(
  file: string,
  source: string,
  owned: readonly string[],
  schemas: readonly string[],
): Crossing[] {
  const foreign = schemas.filter((schema) => !owned.includes(schema));
  if (foreign.length === 0) return [];
  const names = foreign.join('|');
  const quoted = new RegExp(`"(${names})"\\.`, 'g');
  const bare = new RegExp(`(?<![\\w".])(${names})\\.[a-z_]+\\b`, 'g');
  const crossings: Crossing[] = [];
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) {
      const text = node.text;
      const found = [...text.matchAll(quoted), ...(SQL_WORDS.test(text) ? text.matchAll(bare) : [])];
      for (const match of found) {
        const offset = node.getStart(sourceFile) + 1 + (match.index ?? 0);
        const { line } = sourceFile.getLineAndCharacterOfPosition(offset);
        const lineText = source.split('\n')[line]?.trim() ?? '';
        crossings.push({ file, line: line + 1, schema: match[1] ?? '', text: lineText });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return crossings;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(relative);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [relative] : [];
  });
}

const libs = readdirSync(path.join(root, 'libs'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const allSchemas = [...new Set(Object.values(schemaOwners).flat())];

function crossings(): Crossing[] {
  return libs.flatMap((lib) =>
    sourceFiles(`libs/${lib}/src`)
      .filter((file) => !exemptDirs.some((dir) => file.startsWith(dir)))
      .flatMap((file) =>
        crossSchemaQueries(file, readFileSync(path.join(root, file), 'utf8'), schemaOwners[lib] ?? [], allSchemas),
      ),
  );
}

const exempt = (crossing: Crossing) => exemptions.some((e) => e.file === crossing.file && e.schema === crossing.schema);

describe('schema ownership', () => {
  const found = crossings();

  it('gives every schema an owner: one library, or the two of the identity domain', () => {
    expect([...allSchemas].sort()).toEqual([...contextSchemas, platformSchema].sort());
    for (const lib of Object.keys(schemaOwners)) expect(libs).toContain(lib);
  });

  it("finds no library's SQL naming another library's schema", () => {
    const named = found.filter((c) => !exempt(c)).map((c) => `${c.file}:${c.line} names "${c.schema}": ${c.text}`);
    expect(named).toEqual([]);
  });

  it('keeps only exemptions that still cross', () => {
    for (const exemption of exemptions) {
      expect(found.filter((c) => c.file === exemption.file && c.schema === exemption.schema)).not.toEqual([]);
    }
  });

  it("refuses a query on another library's table, quoted or bare, and names the line", () => {
    const source = [
      'const owned = \'SELECT 1 FROM "agent"."skills"\';',
      '// a comment on "identity"."users" is not SQL',
      'const users = `SELECT "id"',
      '  FROM "identity"."users" WHERE "id" = ${1}`;',
      "const archived = 'DELETE FROM conversations.messages';",
      "const key = 'gateway.routes';",
    ].join('\n');
    expect(crossSchemaQueries('libs/agent/src/probe.ts', source, ['agent'], allSchemas)).toEqual([
      {
        file: 'libs/agent/src/probe.ts',
        line: 4,
        schema: 'identity',
        text: 'FROM "identity"."users" WHERE "id" = ${1}`;',
      },
      {
        file: 'libs/agent/src/probe.ts',
        line: 5,
        schema: 'conversations',
        text: "const archived = 'DELETE FROM conversations.messages';",
      },
    ]);
  });
});
