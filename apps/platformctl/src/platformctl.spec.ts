import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { buildDist, cleanEnv, startProcess } from '@fed/testing';

const cli = 'dist/apps/platformctl/src/main.js';

async function run(args: string[], env: Record<string, string>) {
  const handle = startProcess(cli, args, cleanEnv(env));
  const code = await handle.exited(60_000);
  return { code, output: handle.output() };
}

describe('platformctl', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    buildDist();
    database = await createTestDatabase();
  }, 60_000);
  afterAll(async () => {
    await database?.drop();
  });

  it('migrate reports the schema up to date on a migrated database', async () => {
    const { code, output } = await run(['migrate'], { DATABASE_URL: database.url });
    expect(code).toBe(0);
    expect(output).toContain('database schema up to date');
  });

  it('migrate --dry-run lists no pending migration on a migrated database', async () => {
    const { code, output } = await run(['migrate', '--dry-run'], { DATABASE_URL: database.url });
    expect(code).toBe(0);
    expect(output).toContain('no pending migrations');
  });

  it('config check passes for an app whose environment is complete, masking secrets', async () => {
    const { code, output } = await run(['config', 'check', '--app', 'chat-service'], {
      DATABASE_URL: 'postgres://app:hunter2@db:5432/fed',
      REDIS_URL: 'redis://redis:6379',
    });
    expect(code).toBe(0);
    expect(output).toContain('chat-service: ok');
    expect(output).toContain('postgres://app:****@db:5432/fed');
    expect(output).not.toContain('hunter2');
  });

  it('config check fails with exit 1 and names each missing variable', async () => {
    const { code, output } = await run(['config', 'check', '--app', 'llm-gateway'], {});
    expect(code).toBe(1);
    expect(output).toContain('DATABASE_URL: is required but not set');
    expect(output).toContain('REDIS_URL: is required but not set');
  });

  it('refuses an unknown app name', async () => {
    const { code, output } = await run(['config', 'check', '--app', 'nope'], {});
    expect(code).not.toBe(0);
    expect(output).toContain('expected one of');
  });
});
