import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { buildDist, cleanEnv, startProcess } from '@fed/testing';
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const cli = 'dist/apps/platformctl/src/main.js';
const repoRoot = path.resolve(__dirname, '../../..');

async function run(args: string[], env: Record<string, string>) {
  const handle = startProcess(cli, args, cleanEnv(env));
  const code = await handle.exited(60_000);
  return { code, output: handle.output() };
}

/** The CLI under a file-size limit (RLIMIT_FSIZE, which binds root too): a write past it fails (EFBIG) mid-file. */
function runWithFileSizeLimit(kib: number, args: string[], env: Record<string, string>) {
  const command = `ulimit -f ${kib} && exec "$0" "$@"`;
  const child = spawn('/bin/sh', ['-c', command, process.execPath, path.join(repoRoot, cli), ...args], {
    cwd: repoRoot,
    env: cleanEnv(env),
    stdio: 'pipe',
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise<{ code: number | null; output: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, output })),
  );
}

// `platformctl realm export FILE` writes password and client-secret hashes: owner-only, and never half a file.
describe('platformctl realm export onto an existing file', () => {
  let database: TestDatabase;
  let dir: string;
  const env = () => ({ DATABASE_URL: database.url });

  beforeAll(async () => {
    buildDist();
    database = await createTestDatabase();
    dir = await mkdtemp(path.join(tmpdir(), 'fed-realm-export-'));
    const users = Array.from({ length: 20 }, (_, i) => ({
      email: `user${i}@acme.example.com`,
      displayName: `User ${i}`,
      tenant: 'acme',
      password: `password of user ${i}`,
    }));
    const realm = path.join(dir, 'realm.json');
    await writeFile(
      realm,
      JSON.stringify({
        realm: 'federation',
        tenants: [{ name: 'acme', type: 'enterprise', endpoint: 'https://acme.example.com' }],
        clients: [{ clientId: 'etl', name: 'ETL', grantTypes: ['client_credentials'], scopes: ['users:read'] }],
        users,
      }),
    );
    expect((await run(['realm', 'import', realm], env())).code).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('leaves an existing 0644 file at mode 0600 with the new content', async () => {
    const file = path.join(dir, 'export.json');
    await writeFile(file, 'the previous export\n');
    await chmod(file, 0o644);
    const { code, output } = await run(['realm', 'export', file], env());
    expect({ code, output }).toEqual({ code: 0, output: '' });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const exported = JSON.parse(await readFile(file, 'utf8')) as { users: { passwordHash: string }[] };
    expect(exported.users).toHaveLength(20);
    expect(exported.users[0]?.passwordHash).toMatch(/^\$argon2id\$/);
    expect(await readdir(dir)).toEqual(['export.json', 'realm.json']);
  }, 60_000);

  it('leaves the old file intact, and no temporary file, when the write fails part-way', async () => {
    const file = path.join(dir, 'kept.json');
    const previous = `${JSON.stringify({ realm: 'federation', note: 'the previous export' })}\n`;
    await writeFile(file, previous, { mode: 0o600 });
    // The export is over 8 KiB (20 argon2id hashes): the limit stops it in the middle.
    const { code, output } = await runWithFileSizeLimit(4, ['realm', 'export', file], env());
    expect(code).not.toBe(0);
    expect(output).toMatch(/EFBIG|file too large/i);
    expect(await readFile(file, 'utf8')).toBe(previous);
    expect((await readdir(dir)).sort()).toEqual(['export.json', 'kept.json', 'realm.json']);
  }, 60_000);
});
