import { randomUUID } from 'node:crypto';
import { revertLastMigration, runMigrations } from '../migrator/migrator';
import { type TestDatabase, createTestDatabase } from '../testing';
import { AddLogTenants1795403000000 } from './1795403000000-add-log-tenants';

/** Rows written before the migration get the tenant they can be attributed to reliably, and are counted as its. */
describe('AddLogTenants1795403000000', () => {
  let database: TestDatabase;
  const [tenantA, tenantB] = [randomUUID(), randomUUID()];
  const userA = randomUUID();
  const serviceAccountB = randomUUID();
  const conversationA = randomUUID();
  const archivedB = randomUUID();

  // Back to the schema just before this migration (later ones are reverted first).
  async function revertThisMigration(): Promise<void> {
    let reverted: string | undefined;
    do reverted = await revertLastMigration(database.url);
    while (reverted && reverted !== AddLogTenants1795403000000.name);
  }

  const query = <T>(sql: string, parameters: unknown[] = []) =>
    database.dataSource.query(sql, parameters) as Promise<T>;

  beforeAll(async () => {
    database = await createTestDatabase();
    await revertThisMigration();
    for (const [id, name] of [
      [tenantA, 'a'],
      [tenantB, 'b'],
    ]) {
      await query(
        `INSERT INTO "identity"."tenants" ("id", "name", "type", "endpoint", "enabled", "created_at")
         VALUES ($1, $2, 'saas', 'https://example.com', true, now())`,
        [id, name],
      );
    }
    await query(
      `INSERT INTO "identity"."users" ("id", "tenant_id", "email", "email_verified", "username", "display_name", "role",
         "developer", "status", "created_at", "updated_at")
       VALUES ($1, $2, 'a@example.com', true, 'a', 'a', 'admin', false, 'approved', now(), now())`,
      [userA, tenantA],
    );
    await query(
      `INSERT INTO "identity"."clients" ("client_id", "name", "secret_hash", "secret_rotated_at", "redirect_uris",
         "grant_types", "scopes", "publication_status", "consent_required", "service_account_id", "created_at",
         "updated_at", "tenant_id")
       VALUES ('etl-b', 'etl-b', '\\x00', now(), '{}', '{client_credentials}', '{logs:read}', 'Published', false, $1,
         now(), now(), $2)`,
      [serviceAccountB, tenantB],
    );
    await query(
      `INSERT INTO "conversations"."conversations" ("id", "user_id", "tenant_id", "title", "created_at", "updated_at")
       VALUES ($1, $2, $3, 't', now(), now())`,
      [conversationA, userA, tenantA],
    );
    await query(
      `INSERT INTO "conversations"."archived_conversations" ("id", "user_id", "tenant_id", "title", "created_at",
         "updated_at", "archived_at") VALUES ($1, 'someone', $2, 't', now(), now(), now())`,
      [archivedB, tenantB],
    );
    const audit = (userId: string) =>
      query(
        `INSERT INTO "audit"."audit_logs" ("id", "resource", "action", "user_id", "created_at")
         VALUES ($1, 'users/show', 'approve', $2, now())`,
        [randomUUID(), userId],
      );
    await audit(userA);
    await audit(serviceAccountB);
    await audit('not-a-uuid');
    await audit(randomUUID());
    const llm = (conversationId: string | null) =>
      query(`INSERT INTO "audit"."llm_logs" ("id", "created_at", "conversation_id") VALUES ($1, now(), $2)`, [
        randomUUID(),
        conversationId,
      ]);
    await llm(conversationA);
    await llm(archivedB);
    await llm(randomUUID());
    await llm('junk');
    await llm(null);
    const gateway = (principal: string) =>
      query(`INSERT INTO "audit"."llm_gateway_logs" ("id", "created_at", "metadata") VALUES ($1, now(), $2)`, [
        randomUUID(),
        { principal },
      ]);
    await gateway('client:etl-b');
    await gateway('api-key:whoever');
    await query(`INSERT INTO "audit"."access_logs" ("id", "created_at") VALUES ($1, now())`, [randomUUID()]);
    await runMigrations(database.url);
  }, 60_000);

  afterAll(() => database?.drop());

  const tenantsOf = async (table: string) =>
    (
      await query<{ tenant: string | null }[]>(
        `SELECT "tenant_id" AS "tenant" FROM "audit"."${table}" ORDER BY "tenant_id" NULLS LAST`,
      )
    ).map((row) => row.tenant);

  const sortedTenants = (...tenants: (string | null)[]) =>
    [...tenants].sort((x, y) => (x === null ? 1 : y === null ? -1 : x.localeCompare(y)));

  it("attributes an audit row to its actor's tenant (a user's, or a client's service account's), else leaves it null", async () => {
    expect(await tenantsOf('audit_logs')).toEqual(sortedTenants(tenantA, tenantB, null, null));
  });

  it("attributes an LLM row to its conversation's tenant (active or archived), else leaves it null", async () => {
    expect(await tenantsOf('llm_logs')).toEqual(sortedTenants(tenantA, tenantB, null, null, null));
  });

  it("attributes a gateway row of a client's token to the client's tenant; a key's and an access row stay null", async () => {
    expect(await tenantsOf('llm_gateway_logs')).toEqual([tenantB, null]);
    expect(await tenantsOf('access_logs')).toEqual([null]);
  });

  it("counts the attributed rows under '<log>:<tenantId>' for the day, and new rows as they are written", async () => {
    const counts = async () =>
      Object.fromEntries(
        (
          await query<{ log: string; n: string }[]>(
            `SELECT "log", sum("row_count")::text AS "n" FROM "audit"."log_day_counts" GROUP BY 1`,
          )
        ).map(({ log, n }) => [log, Number(n)]),
      );
    expect(await counts()).toEqual({
      audit: 4,
      [`audit:${tenantA}`]: 1,
      [`audit:${tenantB}`]: 1,
      llm: 5,
      [`llm:${tenantA}`]: 1,
      [`llm:${tenantB}`]: 1,
      gateway: 2,
      [`gateway:${tenantB}`]: 1,
      access: 1,
    });
    await query(`INSERT INTO "audit"."access_logs" ("id", "created_at", "tenant_id") VALUES ($1, now(), $2)`, [
      randomUUID(),
      tenantA,
    ]);
    await query(`DELETE FROM "audit"."llm_logs" WHERE "tenant_id" = $1`, [tenantB]);
    expect(await counts()).toMatchObject({ access: 2, [`access:${tenantA}`]: 1, llm: 4, [`llm:${tenantB}`]: 0 });
  });

  it('is reverted without the tenant counts, and applied again', async () => {
    await revertThisMigration();
    const tenantCounts = await query<unknown[]>(`SELECT 1 FROM "audit"."log_day_counts" WHERE "log" LIKE '%:%'`);
    expect(tenantCounts).toEqual([]);
    await runMigrations(database.url);
    expect(await tenantsOf('audit_logs')).toEqual(sortedTenants(tenantA, tenantB, null, null));
  });

  it('finds the columns and indexes an operator made first (docs/admin.md, "Upgrading large log tables")', async () => {
    await revertThisMigration();
    const logs = ['audit_logs', 'llm_logs', 'llm_gateway_logs', 'access_logs'];
    for (const table of logs) await query(`ALTER TABLE audit.${table} ADD COLUMN IF NOT EXISTS tenant_id text`);
    await query(`ALTER TABLE gateway.api_keys ADD COLUMN IF NOT EXISTS tenant_id uuid`);
    for (const table of logs) {
      await query(
        `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${table}_tenant_idx ON audit.${table} (tenant_id, created_at, id) WHERE tenant_id IS NOT NULL`,
      );
    }
    // A row the previous version writes meanwhile: no tenant.
    await query(
      `INSERT INTO "audit"."audit_logs" ("id", "resource", "action", "user_id", "created_at")
       VALUES ($1, 'users/show', 'approve', $2, now())`,
      [randomUUID(), userA],
    );
    await runMigrations(database.url);
    expect(await tenantsOf('audit_logs')).toEqual(sortedTenants(tenantA, tenantA, tenantB, null, null));
    const [counted] = await query<{ n: string }[]>(
      `SELECT sum("row_count")::text AS "n" FROM "audit"."log_day_counts" WHERE "log" = $1`,
      [`audit:${tenantA}`],
    );
    expect(Number(counted?.n)).toBe(2);
    const valid = await query<{ valid: boolean }[]>(
      `SELECT indisvalid AS "valid" FROM pg_index WHERE indexrelid = ANY($1::regclass[])`,
      [logs.map((table) => `audit.${table}_tenant_idx`)],
    );
    expect(valid).toEqual(logs.map(() => ({ valid: true })));
  });
});
