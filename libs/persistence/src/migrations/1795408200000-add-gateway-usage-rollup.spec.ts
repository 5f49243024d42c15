import { randomUUID } from 'node:crypto';
import { revertLastMigration, runMigrations } from '../migrator/migrator';
import { type TestDatabase, createTestDatabase } from '../testing';
import { AddGatewayUsageRollup1795408200000 } from './1795408200000-add-gateway-usage-rollup';

const ROLLUP = `SELECT "day"::text AS "day", "tenant_id" AS "tenantId", "model_name" AS "model", "principal",
    "requests"::int, "errors"::int, "input_tokens"::int AS "inputTokens", "cost_usd"::text AS "costUsd"
  FROM "audit"."llm_gateway_usage_days" ORDER BY 1, 2, 3, 4`;

/** Gateway log rows written before the migration are summed into the rollup once; later rows by the trigger. */
describe('AddGatewayUsageRollup1795408200000', () => {
  let database: TestDatabase;
  const tenant = randomUUID();

  const query = <T>(sql: string, parameters: unknown[] = []) =>
    database.dataSource.query(sql, parameters) as Promise<T>;
  const logRow = (createdAt: string, model: string | null, tenantId: string | null, fields: Record<string, unknown>) =>
    query(
      `INSERT INTO "audit"."llm_gateway_logs" ("id", "created_at", "model_name", "tenant_id", "metadata", "success",
         "input_tokens", "cost_usd") VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        randomUUID(),
        createdAt,
        model,
        tenantId,
        { principal: fields.principal ?? null },
        fields.success ?? true,
        fields.inputTokens ?? null,
        fields.costUsd ?? null,
      ],
    );

  beforeAll(async () => {
    database = await createTestDatabase();
    let reverted: string | undefined;
    do reverted = await revertLastMigration(database.url);
    while (reverted && reverted !== AddGatewayUsageRollup1795408200000.name);
    await logRow('2026-01-31T23:00:00Z', 'gpt-5', tenant, {
      principal: 'api-key:ci',
      inputTokens: 100,
      costUsd: '0.5',
    });
    await logRow('2026-01-31T01:00:00Z', 'gpt-5', tenant, { principal: 'api-key:ci', inputTokens: 20, success: false });
    await logRow('2026-02-01T00:00:00Z', null, null, { success: false });
    await runMigrations(database.url);
  }, 60_000);

  afterAll(() => database?.drop());

  it('sums the rows already in the log into their days and buckets', async () => {
    expect(await query(ROLLUP)).toEqual([
      {
        day: '2026-01-31',
        tenantId: tenant,
        model: 'gpt-5',
        principal: 'api-key:ci',
        requests: 2,
        errors: 1,
        inputTokens: 120,
        costUsd: '0.50000000',
      },
      {
        day: '2026-02-01',
        tenantId: null,
        model: null,
        principal: null,
        requests: 1,
        errors: 1,
        inputTokens: 0,
        costUsd: '0',
      },
    ]);
  });

  it('then adds rows as they are written, to the buckets the backfill made', async () => {
    await logRow('2026-01-31T12:00:00Z', 'gpt-5', tenant, { principal: 'api-key:ci', inputTokens: 1, costUsd: '0.25' });
    const [first] = await query<{ requests: number; inputTokens: number; costUsd: string }[]>(ROLLUP);
    expect(first).toMatchObject({ requests: 3, inputTokens: 121, costUsd: '0.75000000' });
  });

  it('reverts to the log alone (no table, no trigger), and inserts still work', async () => {
    let reverted: string | undefined;
    do reverted = await revertLastMigration(database.url);
    while (reverted && reverted !== AddGatewayUsageRollup1795408200000.name);
    const [table] = await query<{ exists: string | null }[]>(
      `SELECT to_regclass('audit.llm_gateway_usage_days')::text AS "exists"`,
    );
    expect(table?.exists).toBeNull();
    await logRow('2026-03-01T00:00:00Z', 'demo', null, {});
    await runMigrations(database.url);
    expect((await query<unknown[]>(ROLLUP)).length).toBe(3);
  });
});
