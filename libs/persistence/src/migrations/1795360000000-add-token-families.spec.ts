import { randomUUID } from 'node:crypto';
import { revertLastMigration, runMigrations } from '../migrator/migrator';
import { type TestDatabase, createTestDatabase } from '../testing';
import { AddTokenFamilies1795360000000 } from './1795360000000-add-token-families';

/** The backfill: refresh tokens stored before the migration each get their family's row. */
describe('AddTokenFamilies1795360000000', () => {
  let database: TestDatabase;

  // Back to the schema just before this migration (later ones are reverted first).
  async function revertThisMigration(): Promise<void> {
    let reverted: string | undefined;
    do reverted = await revertLastMigration(database.url);
    while (reverted && reverted !== AddTokenFamilies1795360000000.name);
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    await revertThisMigration();
  });

  afterAll(() => database?.drop());

  const userId = randomUUID();

  async function storeToken(familyId: string, hours: number, state: { used?: boolean; revoked?: boolean } = {}) {
    await database.dataSource.query(
      `INSERT INTO "identity"."refresh_tokens" ("token_hash", "family_id", "client_id", "user_id", "scope",
         "session_id", "auth_time", "access_token_id", "access_expires_at", "issued_at", "expires_at",
         "family_expires_at", "used_at", "revoked_at")
       VALUES ($1, $2, 'web', $3, 'openid', 'sid', 1, $4, now(), now() - make_interval(hours => $5), now(),
         now() + interval '10 hours', CASE WHEN $6 THEN now() END, CASE WHEN $7 THEN now() END)`,
      [Buffer.from(randomUUID()), familyId, userId, randomUUID(), hours, state.used ?? false, state.revoked ?? false],
    );
  }

  it('creates a row per family, revoked with every token of it when any token was revoked', async () => {
    await storeToken('live', 2, { used: true });
    await storeToken('live', 1);
    // What the race left behind: a family revoked while an unrevoked token was stored into it.
    await storeToken('raced', 1, { used: true, revoked: true });
    await storeToken('raced', 0);
    await runMigrations(database.url);

    const families: Record<string, unknown>[] = await database.dataSource.query(
      `SELECT "id", "client_id", "user_id", "revoked_at" IS NOT NULL AS "revoked",
              "created_at" < now() - interval '90 minutes' AS "created_with_first_token",
              "expires_at" > now() + interval '9 hours' AS "kept_session_maximum"
         FROM "identity"."token_families" ORDER BY "id"`,
    );
    const family = { client_id: 'web', user_id: userId, created_with_first_token: true, kept_session_maximum: true };
    expect(families).toEqual([
      { ...family, id: 'live', revoked: false },
      { ...family, id: 'raced', revoked: true, created_with_first_token: false },
    ]);
    const unrevoked: { family_id: string }[] = await database.dataSource.query(
      `SELECT "family_id" FROM "identity"."refresh_tokens" WHERE "revoked_at" IS NULL`,
    );
    expect(unrevoked).toEqual([{ family_id: 'live' }, { family_id: 'live' }]);
  });

  it('refuses a refresh token without its family', async () => {
    await expect(storeTokenAfter('missing')).rejects.toMatchObject({ code: '23503' });
  });

  it('gives every token its family maximum back when reverted', async () => {
    await revertThisMigration();
    const tokens: { family_id: string; kept: boolean }[] = await database.dataSource.query(
      `SELECT "family_id", "family_expires_at" > now() + interval '9 hours' AS "kept"
         FROM "identity"."refresh_tokens" ORDER BY "family_id"`,
    );
    expect(tokens).toHaveLength(4);
    expect(tokens.every((token) => token.kept)).toBe(true);
    await runMigrations(database.url);
  });

  function storeTokenAfter(familyId: string) {
    return database.dataSource.query(
      `INSERT INTO "identity"."refresh_tokens" ("token_hash", "family_id", "client_id", "user_id", "scope",
         "session_id", "auth_time", "access_token_id", "access_expires_at", "issued_at", "expires_at")
       VALUES ($1, $2, 'web', $3, 'openid', 'sid', 1, 'jti', now(), now(), now())`,
      [Buffer.from(randomUUID()), familyId, userId],
    );
  }
});
