import { randomUUID } from 'node:crypto';
import { revertLastMigration, runMigrations } from '../migrator/migrator';
import { type TestDatabase, createTestDatabase } from '../testing';

const MIGRATION = 'ScopeMasterDataByTenant1795404000000';

/** The upgrade of a database whose organizations and job types were platform-wide by construction. */
describe('ScopeMasterDataByTenant1795404000000: existing master data becomes platform-wide', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    for (let name = await revertLastMigration(database.url); name !== MIGRATION;) {
      if (!name) throw new Error(`${MIGRATION} was not applied`);
      name = await revertLastMigration(database.url);
    }
  });
  afterAll(() => database?.drop());

  it('keeps every record and user label, as platform-wide records with an id; codes are then unique per tenant', async () => {
    const query = (sql: string, parameters: unknown[] = []) => database.dataSource.query(sql, parameters);
    await query(`INSERT INTO "identity"."organizations" ("code", "label", "created_at", "updated_at")
                 VALUES ('sales', 'Sales', now(), now()), ('rnd', 'R&D', now(), now())`);
    await query(`INSERT INTO "identity"."job_types" ("code", "label", "created_at", "updated_at")
                 VALUES ('eng', 'Engineer', now(), now())`);
    await runMigrations(database.url);

    expect(
      await query(`SELECT "code", "label", "tenant_id" AS "tenantId", "id" IS NOT NULL AS "hasId"
                     FROM "identity"."organizations" ORDER BY "code"`),
    ).toEqual([
      { code: 'rnd', label: 'R&D', tenantId: null, hasId: true },
      { code: 'sales', label: 'Sales', tenantId: null, hasId: true },
    ]);
    expect(await query(`SELECT "code", "tenant_id" AS "tenantId" FROM "identity"."job_types"`)).toEqual([
      { code: 'eng', tenantId: null },
    ]);

    // A second platform-wide `sales` is refused by the schema; a tenant's own `sales` is not (the
    // application refuses it while a platform-wide one exists: docs/admin.md).
    await expect(
      query(`INSERT INTO "identity"."organizations" ("code", "label", "created_at", "updated_at")
             VALUES ('sales', 'Again', now(), now())`),
    ).rejects.toThrow(/organizations_platform_code_key/);
    const tenant = randomUUID();
    await query(
      `INSERT INTO "identity"."tenants" ("id", "name", "type", "endpoint", "enabled", "created_at")
                 VALUES ($1, 'acme', 'enterprise', 'https://acme.example.com', true, now())`,
      [tenant],
    );
    const insert = () =>
      query(
        `INSERT INTO "identity"."organizations" ("code", "label", "tenant_id", "created_at", "updated_at")
             VALUES ('acme-team', 'Team', $1, now(), now())`,
        [tenant],
      );
    await insert();
    await expect(insert()).rejects.toThrow(/organizations_code_tenant_id_key/);
  });
});
