import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { buildDist, cleanEnv, startProcess } from '@fed/testing';
import { randomUUID } from 'node:crypto';

const cli = 'dist/apps/platformctl/src/main.js';

async function run(args: string[], env: Record<string, string>) {
  const handle = startProcess(cli, args, cleanEnv(env));
  const code = await handle.exited(60_000);
  return { code, output: handle.output() };
}

// A virtual key issued to a tenant: its gateway calls go to that tenant's logs (docs/admin.md, "Logs: whose rows a
// reader sees"); `platformctl logs` reads as the operator, every tenant's rows and those of none.
describe('platformctl apikeys create --tenant, and logs as the operator', () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  const acme = randomUUID();

  beforeAll(async () => {
    buildDist();
    database = await createTestDatabase();
    env = { DATABASE_URL: database.url };
    await database.dataSource.query(
      `INSERT INTO "identity"."tenants" ("id", "name", "type", "endpoint", "enabled", "created_at")
       VALUES ($1, 'acme', 'saas', 'https://acme.example.com', true, now())`,
      [acme],
    );
  }, 120_000);

  afterAll(async () => {
    await database?.drop();
  });

  const keys = () =>
    database.dataSource.query(`SELECT "name", "tenant_id" AS "tenantId" FROM "gateway"."api_keys" ORDER BY "name"`);

  it('issues a key to a tenant named by name or id, and lists it with its tenant', async () => {
    expect((await run(['apikeys', 'create', '--name', 'acme-ci', '--tenant', 'acme'], env)).code).toBe(0);
    expect((await run(['apikeys', 'create', '--name', 'acme-bot', '--tenant', acme.toUpperCase()], env)).code).toBe(0);
    expect((await run(['apikeys', 'create', '--name', 'operator'], env)).code).toBe(0);
    expect(await keys()).toEqual([
      { name: 'acme-bot', tenantId: acme },
      { name: 'acme-ci', tenantId: acme },
      { name: 'operator', tenantId: null },
    ]);
    const listed = (await run(['apikeys', 'list'], env)).output.split('\n');
    expect(listed.find((line) => line.includes('"acme-ci"'))).toContain(`tenant=${acme}`);
    expect(listed.find((line) => line.includes('"operator"'))).toContain('tenant=-');
  });

  it('refuses a tenant that does not exist, and issues no key', async () => {
    const { code, output } = await run(['apikeys', 'create', '--name', 'ghost', '--tenant', 'nosuch'], env);
    expect(code).not.toBe(0);
    expect(output).toContain('no tenant named "nosuch"');
    expect((await keys()).map((key: { name: string }) => key.name)).not.toContain('ghost');
  });

  it("prints every tenant's log rows and those of none (the operator reads all)", async () => {
    for (const tenantId of [acme, null]) {
      await database.dataSource.query(
        `INSERT INTO "audit"."audit_logs" ("id", "resource", "action", "user_id", "created_at", "tenant_id")
         VALUES ($1, 'users/show', 'approve', 'admin-1', now(), $2)`,
        [randomUUID(), tenantId],
      );
    }
    const { code, output } = await run(['logs', 'audit'], env);
    expect(code).toBe(0);
    const records = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { tenantId: string | null });
    expect(records.map((record) => record.tenantId).sort()).toEqual([acme, null].sort());
  });
});
