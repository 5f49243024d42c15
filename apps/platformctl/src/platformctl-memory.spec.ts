import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { ScriptedUpstream, buildDist, cleanEnv, startProcess } from '@fed/testing';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';

const cli = 'dist/apps/platformctl/src/main.js';

async function run(args: string[], env: Record<string, string>) {
  const handle = startProcess(cli, args, cleanEnv(env));
  const code = await handle.exited(60_000);
  const output = handle.output();
  const records = output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { code, output, records };
}

describe('platformctl memory', () => {
  let database: TestDatabase;
  let upstream: ScriptedUpstream;
  let dir: string;
  let env: Record<string, string>;
  let embedded: Record<string, string>;
  const tenantId = randomUUID();

  beforeAll(async () => {
    buildDist();
    database = await createTestDatabase();
    upstream = await ScriptedUpstream.start({ latencyMs: 0 });
    dir = mkdtempSync(path.join(tmpdir(), 'fed-memory-'));
    env = { DATABASE_URL: database.url };
    embedded = { ...env, MEMORY_EMBEDDING_MODEL: 'embedder', MEMORY_GATEWAY_URL: `${upstream.url}/v1` };
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query(
        `INSERT INTO "identity"."tenants" ("id", "name", "type", "endpoint", "enabled", "created_at")
         VALUES ($1, 'acme', 'saas', 'https://acme.example.com', true, now())`,
        [tenantId],
      );
    } finally {
      await client.end();
    }
  }, 60_000);
  afterAll(async () => {
    await database?.drop();
    await upstream?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('adds an item without embedding when no MEMORY_EMBEDDING_MODEL is set, and lists it', async () => {
    const added = await run(['memory', 'add', '--text', 'The VPN needs a token.', '--scope', 'global'], env);
    expect(added.code).toBe(0);
    expect(added.output).toContain('added 1 item (not embedded');
    const { records } = await run(['memory', 'list'], env);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      text: 'The VPN needs a token.',
      scope: 'global',
      tenantId: null,
      embeddingModel: null,
    });
  });

  it('adds an organization item of a tenant named on the command line, embedded through the gateway', async () => {
    const before = upstream.requests.length;
    const added = await run(
      [
        'memory',
        'add',
        '--text',
        'Sales closes the books on the 25th.',
        '--scope',
        'organization',
        '--org',
        'sales',
        '--tenant',
        'acme',
      ],
      embedded,
    );
    expect(added.code).toBe(0);
    expect(upstream.requests.length).toBe(before + 1);
    const { records } = await run(['memory', 'list', '--tenant', 'acme'], env);
    expect(records).toEqual([
      expect.objectContaining({ tenantId, scope: 'organization', orgId: 'sales', embeddingModel: 'embedder' }),
    ]);
  });

  it('refuses a scope without its code, an unknown tenant and an unknown scope (exit 1, nothing stored)', async () => {
    for (const args of [
      ['--text', 'x', '--scope', 'organization'],
      ['--text', 'x', '--scope', 'global', '--tenant', 'nobody'],
      ['--text', 'x', '--scope', 'team'],
    ]) {
      const refused = await run(['memory', 'add', ...args], env);
      expect(refused.code).toBe(1);
      expect(refused.output).toContain('refused (invalid_item)');
    }
    expect((await run(['memory', 'list'], env)).records).toHaveLength(2);
  });

  it('imports JSON Lines in batches, idempotent by key, and reports the counts', async () => {
    const file = path.join(dir, 'items.jsonl');
    writeFileSync(
      file,
      [
        { key: 'k1', text: 'Holidays are booked in the HR portal.', scope: 'global', tenant: 'acme' },
        { key: 'k2', text: 'Engineers deploy on Tuesdays.', scope: 'role', jobRole: 'engineer', tenant: tenantId },
        { key: 'k3', text: 'The canteen opens at noon.', scope: 'global' },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n') + '\n\n',
    );
    const first = await run(['memory', 'import', file], embedded);
    expect(first.code).toBe(0);
    expect(first.output).toContain('imported 3 line(s): 3 added, 0 replaced');
    const again = await run(['memory', 'import', file], embedded);
    expect(again.output).toContain('imported 3 line(s): 0 added, 3 replaced');
    const found = await run(['memory', 'search', 'deploy', '--tenant', 'acme', '--role', 'engineer'], embedded);
    expect(found.records[0]).toMatchObject({ text: 'Engineers deploy on Tuesdays.', scope: 'role' });
    expect(typeof found.records[0].score).toBe('number');
  });

  it('refuses a file with a bad line, naming it, and stores none of its lines', async () => {
    const file = path.join(dir, 'bad.jsonl');
    writeFileSync(file, `${JSON.stringify({ text: 'fine', scope: 'global' })}\n{"text": "no scope"}\n`);
    const refused = await run(['memory', 'import', file], env);
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(/item 2: scope/);
    const unknown = path.join(dir, 'unknown.jsonl');
    writeFileSync(unknown, `${JSON.stringify({ text: 'x', scope: 'global', scop: 'role' })}\n`);
    expect((await run(['memory', 'import', unknown], env)).output).toContain('line 1: unknown field scop');
    expect((await run(['memory', 'list'], env)).records).toHaveLength(5);
  });

  it('a gateway failure stores nothing and says so', async () => {
    upstream.enqueue({ kind: 'status', status: 500, path: '/v1/embeddings' });
    const refused = await run(['memory', 'add', '--text', 'lost', '--scope', 'global'], embedded);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('refused (upstream_error)');
    expect((await run(['memory', 'list'], env)).records).toHaveLength(5);
  });

  it('deletes an item by id', async () => {
    const [newest] = (await run(['memory', 'list', '--limit', '1'], env)).records;
    expect((await run(['memory', 'delete', newest.id as string], env)).code).toBe(0);
    expect((await run(['memory', 'list'], env)).records).toHaveLength(4);
    expect((await run(['memory', 'delete', newest.id as string], env)).code).toBe(1);
  });
});
