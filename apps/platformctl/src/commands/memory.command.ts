import { type Command } from 'commander';
import {
  MEMORY_SCOPES,
  MemoryError,
  MemoryItems,
  MemorySearch,
  type MemoryScope,
  type NewMemoryItem,
  memoryEmbeddings,
  memoryEntities,
} from '@fed/memory';
import { readFile } from 'node:fs/promises';
import { type DataSource } from 'typeorm';
import { withEntities } from './database';

interface ItemOptions {
  text: string;
  scope: string;
  org?: string;
  role?: string;
  tenant?: string;
  title?: string;
  key?: string;
}

/** The fields of one line of `memory import` (other fields are refused: a typo must not drop a scope). */
const IMPORT_FIELDS = new Set(['text', 'scope', 'orgId', 'jobRole', 'tenant', 'title', 'source', 'key']);

// A tenant named on the command line: its name (as `clients create --tenant` takes it) or its id.
async function tenantIdOf(dataSource: DataSource, tenant: string | undefined | null): Promise<string | null> {
  if (tenant === undefined || tenant === null) return null;
  const [row] = (await dataSource.query(
    `SELECT "id" FROM "identity"."tenants" WHERE "name" = $1 OR "id"::text = $1 LIMIT 1`,
    [tenant],
  )) as { id: string }[];
  if (!row) throw new MemoryError('invalid_item', `no tenant named ${JSON.stringify(tenant)}`);
  return row.id;
}

function withMemory(work: (dataSource: DataSource, items: MemoryItems, search: MemorySearch) => Promise<void>) {
  return async () => {
    try {
      await withEntities(memoryEntities, async (dataSource, config) => {
        const embeddings = memoryEmbeddings(config.memory);
        await work(dataSource, new MemoryItems(dataSource, embeddings), new MemorySearch(dataSource, embeddings));
      });
    } catch (error) {
      if (!(error instanceof MemoryError)) throw error;
      process.stderr.write(`refused (${error.code}): ${error.message}\n`);
      process.exitCode = 1;
    }
  };
}

function parseLines(content: string): { line: number; record: Record<string, unknown> }[] {
  const records: { line: number; record: Record<string, unknown> }[] = [];
  content.split('\n').forEach((text, index) => {
    if (text.trim() === '') return;
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch {
      throw new MemoryError('invalid_item', `line ${index + 1}: not JSON`);
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      throw new MemoryError('invalid_item', `line ${index + 1}: not a JSON object`);
    }
    const unknown = Object.keys(record).filter((field) => !IMPORT_FIELDS.has(field));
    if (unknown.length > 0) throw new MemoryError('invalid_item', `line ${index + 1}: unknown field ${unknown[0]}`);
    records.push({ line: index + 1, record: record as Record<string, unknown> });
  });
  return records;
}

const printable = (item: {
  id: string;
  tenantId: string | null;
  scope: string;
  orgId: string | null;
  jobRole: string | null;
  text: string;
  source: string | null;
  key: string | null;
  embeddingModel: string | null;
  createdAt: Date;
}) =>
  JSON.stringify({
    id: item.id,
    tenantId: item.tenantId,
    scope: item.scope,
    orgId: item.orgId,
    jobRole: item.jobRole,
    text: item.text,
    source: item.source,
    key: item.key,
    embeddingModel: item.embeddingModel,
    createdAt: item.createdAt.toISOString(),
  });

export function registerMemory(program: Command): void {
  const memory = program
    .command('memory')
    .description(
      "the shared memory (POST /v1/admin/memory/query, the agent's search_memory): add, import, list, search, delete",
    );

  memory
    .command('add')
    .description('store one item (embedded through the gateway when MEMORY_EMBEDDING_MODEL is set)')
    .requiredOption('--text <text>', 'the item, 1-8000 characters')
    .requiredOption('--scope <scope>', MEMORY_SCOPES.join(' | '))
    .option('--org <orgId>', 'organization code (scope organization)')
    .option('--role <jobRole>', 'job type code (scope role)')
    .option('--tenant <tenant>', "tenant name or id (omitted: every tenant's)")
    .option('--title <title>', 'a short label')
    .option('--key <key>', 'your own id: adding the same key again replaces the item')
    .action((options: ItemOptions) =>
      withMemory(async (dataSource, items) => {
        const item: NewMemoryItem = {
          text: options.text,
          scope: options.scope as MemoryScope,
          orgId: options.org,
          jobRole: options.role,
          tenantId: await tenantIdOf(dataSource, options.tenant),
          title: options.title,
          key: options.key,
          source: 'platformctl',
        };
        const { inserted, embedded } = await items.add([item]);
        process.stdout.write(
          `${inserted === 1 ? 'added' : 'replaced'} 1 item${embedded ? '' : ' (not embedded: no MEMORY_EMBEDDING_MODEL)'}\n`,
        );
      })(),
    );

  memory
    .command('import <file>')
    .description(
      'store the items of a JSON Lines file, one object a line: text, scope, orgId, jobRole, tenant (name or id), title, source, key; all lines are checked before any is stored',
    )
    .action((file: string) =>
      withMemory(async (dataSource, items) => {
        const records = parseLines(await readFile(file, 'utf8'));
        const tenants = new Map<string, string | null>();
        const batch: NewMemoryItem[] = [];
        for (const { line, record } of records) {
          const tenant = record.tenant;
          if (tenant !== undefined && tenant !== null && typeof tenant !== 'string') {
            throw new MemoryError('invalid_item', `line ${line}: tenant must be a string`);
          }
          const key = tenant ?? '';
          if (!tenants.has(key)) tenants.set(key, await tenantIdOf(dataSource, tenant));
          const { tenant: _tenant, ...fields } = record;
          batch.push({
            ...(fields as unknown as NewMemoryItem),
            tenantId: tenants.get(key),
            source: (fields.source as string | undefined) ?? `import:${file}`.slice(0, 200),
          });
        }
        const { inserted, replaced, embedded } = await items.add(batch);
        process.stdout.write(
          `imported ${records.length} line(s): ${inserted} added, ${replaced} replaced${embedded ? '' : ' (not embedded: no MEMORY_EMBEDDING_MODEL)'}\n`,
        );
      })(),
    );

  memory
    .command('list')
    .description('items newest first, one JSON object a line')
    .option('--tenant <tenant>', "only this tenant's items (name or id)")
    .option('--shared', 'only the items of every tenant (tenant null)')
    .option('--limit <n>', 'at most this many', '100')
    .action((options: { tenant?: string; shared?: boolean; limit: string }) =>
      withMemory(async (dataSource, items) => {
        const limit = Math.min(Math.max(Number.parseInt(options.limit, 10) || 100, 1), 10_000);
        const tenantId = options.shared
          ? null
          : options.tenant
            ? await tenantIdOf(dataSource, options.tenant)
            : undefined;
        for (const item of await items.list({ tenantId, limit })) process.stdout.write(`${printable(item)}\n`);
      })(),
    );

  memory
    .command('search <query>')
    .description("the admin API's search (without its quota), one JSON object a line with its score")
    .option('--tenant <tenant>', 'as this tenant (name or id); omitted: shared items only')
    .option('--org <orgId>', "adds the organization's items")
    .option('--role <jobRole>', "adds the role's items")
    .action((query: string, options: { tenant?: string; org?: string; role?: string }) =>
      withMemory(async (dataSource, _items, search) => {
        const hits = await search.search({
          tenantId: await tenantIdOf(dataSource, options.tenant),
          orgId: options.org,
          jobRole: options.role,
          text: query,
          limit: 10,
        });
        for (const hit of hits)
          process.stdout.write(`${JSON.stringify({ ...JSON.parse(printable(hit)), score: hit.score })}\n`);
      })(),
    );

  memory
    .command('delete <id>')
    .description('remove one item')
    .action((id: string) =>
      withMemory(async (_dataSource, items) => {
        if (await items.delete(id)) process.stdout.write(`deleted ${id}\n`);
        else {
          process.stderr.write(`no item ${id}\n`);
          process.exitCode = 1;
        }
      })(),
    );
}
