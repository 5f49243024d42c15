import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { buildDist, cleanEnv, startProcess } from '@fed/testing';
import { randomUUID } from 'node:crypto';
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

describe('platformctl logs', () => {
  let database: TestDatabase;
  let env: Record<string, string>;

  beforeAll(async () => {
    buildDist();
    database = await createTestDatabase();
    env = { DATABASE_URL: database.url };
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      // Three admin actions on two days, as the audit trail writes them.
      for (const [resource, action, at] of [
        ['users/approve', 'approve', '2026-11-20T10:00:00Z'],
        ['users/role', 'demote', '2026-11-21T09:00:00Z'],
        ['users/delete', 'delete', '2026-11-21T11:00:00Z'],
      ]) {
        await client.query(
          `INSERT INTO "audit"."audit_logs" ("id", "resource", "action", "meta", "user_id", "user_email", "ip_address", "user_agent", "created_at")
           VALUES ($1, $2, $3, $4, 'admin-1', NULL, '203.0.113.9', 'curl/8', $5)`,
          [randomUUID(), resource, action, JSON.stringify({ userId: 'u-1' }), at],
        );
      }
    } finally {
      await client.end();
    }
  }, 60_000);
  afterAll(async () => {
    await database?.drop();
  });

  it('prints a page of the audit log newest first, in the admin API record shape, with the envelope', async () => {
    const { code, output, records } = await run(['logs', 'audit', '--limit', '2'], env);
    expect(code).toBe(0);
    expect(records.map((record) => record.action)).toEqual(['delete', 'demote']);
    expect(records[0]).toMatchObject({
      resource: 'users/delete',
      userId: 'admin-1',
      ipAddress: '203.0.113.9',
      meta: { userId: 'u-1' },
      createdAt: '2026-11-21T11:00:00.000Z',
    });
    expect(output).toContain('page 1 (2 of 3), next: --page 2');
  });

  it('keeps to the UTC days asked for, the last one included', async () => {
    const { code, records } = await run(['logs', 'audit', '--from', '2026-11-20', '--to', '2026-11-20'], env);
    expect(code).toBe(0);
    expect(records.map((record) => record.action)).toEqual(['approve']);
  });

  it('reads the LLM, gateway, access and guardrail logs too (empty here)', async () => {
    for (const kind of ['llm', 'gateway', 'access', 'guardrail']) {
      const { code, output, records } = await run(['logs', kind], env);
      expect(code).toBe(0);
      expect(records).toEqual([]);
      expect(output).toContain('page 1 (0 of 0)');
    }
  });

  it('refuses the query the admin API refuses, and an unknown log, with exit 1', async () => {
    const backwards = await run(['logs', 'audit', '--from', '2026-11-21', '--to', '2026-11-20'], env);
    expect(backwards.code).toBe(1);
    expect(backwards.output).toContain('refused (invalid_parameter)');
    const tooMany = await run(['logs', 'audit', '--limit', '101'], env);
    expect(tooMany.code).toBe(1);
    expect(tooMany.output).toContain('refused (invalid_parameter)');
    const badSeverity = await run(['logs', 'guardrail', '--severity', 'dire'], env);
    expect(badSeverity.code).toBe(1);
    expect(badSeverity.output).toContain('refused (invalid_parameter): severity must be one of');
    const unknown = await run(['logs', 'secrets'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.output).toContain('unknown log "secrets"');
  });
});
