import { useTestDatabase } from '../testing';
import { ownedBy } from './owned-by';

const TENANT_A = '0a000000-0000-4000-8000-00000000000a';
const TENANT_B = '0b000000-0000-4000-8000-00000000000b';

describe('ownedBy', () => {
  const database = useTestDatabase();

  it("appends the owner's two values and names them after the parameters already there", () => {
    const parameters: unknown[] = ['row-id'];
    expect(ownedBy({ userId: 'alice', tenantId: TENANT_A }, parameters)).toBe(
      '"user_id" = $2 AND "tenant_id" IS NOT DISTINCT FROM $3',
    );
    expect(ownedBy({ userId: 'bob', tenantId: null }, parameters, 'c')).toBe(
      'c."user_id" = $4 AND c."tenant_id" IS NOT DISTINCT FROM $5',
    );
    expect(parameters).toEqual(['row-id', 'alice', TENANT_A, 'bob', null]);
  });

  it("reads the owner's rows only: never another user's, another tenant's, or a NULL tenant's for a tenant", async () => {
    const { dataSource } = database;
    await dataSource.query(`CREATE TABLE "public"."owned_rows" ("name" text, "user_id" text, "tenant_id" uuid)`);
    await dataSource.query(
      `INSERT INTO "public"."owned_rows" VALUES
         ('alice-a', 'alice', $1), ('alice-b', 'alice', $2), ('alice-none', 'alice', NULL),
         ('bob-a', 'bob', $1), ('bob-none', 'bob', NULL)`,
      [TENANT_A, TENANT_B],
    );
    const read = async (userId: string, tenantId: string | null) => {
      const parameters: unknown[] = [];
      const owned = ownedBy({ userId, tenantId }, parameters, 'r');
      const rows = (await dataSource.query(
        `SELECT "name" FROM "public"."owned_rows" AS r WHERE ${owned} ORDER BY "name"`,
        parameters,
      )) as { name: string }[];
      return rows.map((row) => row.name);
    };
    expect(await read('alice', TENANT_A)).toEqual(['alice-a']);
    expect(await read('alice', TENANT_B)).toEqual(['alice-b']);
    expect(await read('alice', null)).toEqual(['alice-none']);
    expect(await read('bob', null)).toEqual(['bob-none']);
    expect(await read('carol', TENANT_A)).toEqual([]);
  });
});
