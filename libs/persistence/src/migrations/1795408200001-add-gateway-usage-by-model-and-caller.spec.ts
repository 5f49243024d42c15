import { randomUUID } from 'node:crypto';
import { revertLastMigration, runMigrations } from '../migrator/migrator';
import { type TestDatabase, createTestDatabase } from '../testing';
import { AddGatewayUsageByModelAndCaller1795408200001 } from './1795408200001-add-gateway-usage-by-model-and-caller';

const BY_MODEL = `SELECT "day"::text AS "day", "tenant_id" AS "tenantId", "model_name" AS "model", "requests"::int,
    "errors"::int, "input_tokens"::int AS "inputTokens", "cost_usd"::text AS "costUsd"
  FROM "audit"."llm_gateway_usage_model_days" ORDER BY 1, 2, 3`;
const BY_CALLER = `SELECT "day"::text AS "day", "virtual_key_id"::text AS "keyId", "principal", "requests"::int,
    "input_tokens"::int AS "inputTokens"
  FROM "audit"."llm_gateway_usage_caller_days" ORDER BY 1, 2, 3`;

/** The narrower rollups are filled from the fine one the first migration made, then kept by the same trigger. */
describe('AddGatewayUsageByModelAndCaller1795408200001', () => {
  let database: TestDatabase;
  const tenant = randomUUID();
  const [keyA, keyB] = [randomUUID(), randomUUID()].sort();

  const query = <T>(sql: string, parameters: unknown[] = []) =>
    database.dataSource.query(sql, parameters) as Promise<T>;
  const logRow = (createdAt: string, model: string, keyId: string | null, principal: string, inputTokens: number) =>
    query(
      `INSERT INTO "audit"."llm_gateway_logs" ("id", "created_at", "model_name", "virtual_key_id", "tenant_id",
         "metadata", "success", "input_tokens", "cost_usd") VALUES ($1, $2, $3, $4, $5, $6, true, $7, 0.5)`,
      [randomUUID(), createdAt, model, keyId, tenant, { principal }, inputTokens],
    );
  const revertThisMigration = async () => {
    let reverted: string | undefined;
    do reverted = await revertLastMigration(database.url);
    while (reverted && reverted !== AddGatewayUsageByModelAndCaller1795408200001.name);
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    await revertThisMigration();
    // Two keys on one model, one key on two models: the fine rollup has three buckets.
    await logRow('2026-06-01T10:00:00Z', 'gpt-5', keyA, 'api-key:a', 10);
    await logRow('2026-06-01T11:00:00Z', 'gpt-5', keyB, 'api-key:b', 20);
    await logRow('2026-06-01T12:00:00Z', 'claude', keyA, 'api-key:a', 40);
    await runMigrations(database.url);
  }, 60_000);

  afterAll(() => database?.drop());

  it('sums the fine rollup into the rollups by model and by caller', async () => {
    expect(await query(BY_MODEL)).toEqual([
      {
        day: '2026-06-01',
        tenantId: tenant,
        model: 'claude',
        requests: 1,
        errors: 0,
        inputTokens: 40,
        costUsd: '0.50000000',
      },
      {
        day: '2026-06-01',
        tenantId: tenant,
        model: 'gpt-5',
        requests: 2,
        errors: 0,
        inputTokens: 30,
        costUsd: '1.00000000',
      },
    ]);
    expect(await query(BY_CALLER)).toEqual([
      { day: '2026-06-01', keyId: keyA, principal: 'api-key:a', requests: 2, inputTokens: 50 },
      { day: '2026-06-01', keyId: keyB, principal: 'api-key:b', requests: 1, inputTokens: 20 },
    ]);
  });

  it('then adds each new log row to all three rollups', async () => {
    await logRow('2026-06-01T13:00:00Z', 'gpt-5', null, 'client:etl', 5);
    const [fine] = await query<{ requests: number }[]>(
      `SELECT sum("requests")::int AS "requests" FROM "audit"."llm_gateway_usage_days"`,
    );
    expect(fine?.requests).toBe(4);
    expect(
      (await query<{ model: string; requests: number }[]>(BY_MODEL)).find((row) => row.model === 'gpt-5'),
    ).toMatchObject({
      requests: 3,
      inputTokens: 35,
    });
    expect((await query<{ principal: string }[]>(BY_CALLER)).at(-1)).toMatchObject({
      keyId: null,
      principal: 'client:etl',
    });
  });

  it('reverts to the fine rollup alone, still kept by the trigger', async () => {
    await revertThisMigration();
    const [tables] = await query<{ model: string | null; caller: string | null }[]>(
      `SELECT to_regclass('audit.llm_gateway_usage_model_days')::text AS "model",
              to_regclass('audit.llm_gateway_usage_caller_days')::text AS "caller"`,
    );
    expect(tables).toEqual({ model: null, caller: null });
    await logRow('2026-06-02T00:00:00Z', 'demo', null, 'client:etl', 1);
    const [fine] = await query<{ requests: number }[]>(
      `SELECT sum("requests")::int AS "requests" FROM "audit"."llm_gateway_usage_days"`,
    );
    expect(fine?.requests).toBe(5);
    await runMigrations(database.url);
    expect((await query<unknown[]>(BY_MODEL)).length).toBe(3);
  });
});
