import { useTestDatabase } from '@fed/persistence/testing';
import { randomUUID } from 'node:crypto';
import { type EntityManager } from 'typeorm';
import { type RefreshTokenRecord, RefreshTokenRepository, type TokenFamily } from './refresh-token.repository';

/** Real PostgreSQL: the family row as the lock, and what the sweeper deletes. */
describe('refresh-token families', () => {
  const database = useTestDatabase();
  const repository = () => new RefreshTokenRepository(database.dataSource);

  const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000);
  const newFamily = (expiresAt = inSeconds(3600)): TokenFamily => ({
    id: randomUUID(),
    clientId: 'web',
    userId: randomUUID(),
    expiresAt,
  });
  const tokenOf = (family: TokenFamily, expiresAt = inSeconds(1800)): RefreshTokenRecord => ({
    familyId: family.id,
    clientId: family.clientId,
    userId: family.userId,
    scope: 'openid',
    sessionId: 'sid',
    authTime: Math.floor(Date.now() / 1000),
    accessTokenId: randomUUID(),
    accessExpiresAt: inSeconds(300),
    expiresAt,
  });
  const issue = (family: TokenFamily, record = tokenOf(family)) =>
    repository().withinFamily(family, (manager) => repository().issue(manager, record));

  it('stores no token into a family revoked while the rotation waited for its lock', async () => {
    const family = newFamily();
    const first = await issue(family);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const rotation = repository().withinFamily(family, async (manager: EntityManager) => {
      locked();
      await held;
      expect(await repository().redeem(manager, first as string, 'web')).toBe('redeemed');
      return repository().issue(manager, tokenOf(family));
    });
    await lockTaken;
    const revocation = database.dataSource.transaction((manager) => repository().revokeFamily(manager, family.id));
    let revoked = false;
    void revocation.then(() => (revoked = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(revoked).toBe(false);
    release();
    const second = await rotation;
    // The revocation ran after the rotation committed: it revoked the token just stored as well.
    expect((await revocation).map((token) => token.jti)).toHaveLength(2);
    expect(await repository().find(second as string, 'web')).toBeUndefined();
    expect(await issue(family)).toBe('revoked');
  });

  it('sweeps families a day past their expiry with the tokens left in them, and keeps the others', async () => {
    const [expired, live] = [newFamily(inSeconds(-2 * 86_400)), newFamily()];
    await issue(expired, tokenOf(expired, inSeconds(3600)));
    const kept = await issue(live);
    expect(await repository().sweep()).toEqual({ refreshTokens: 0, tokenFamilies: 1 });
    const left: { family_id: string }[] = await database.dataSource.query(
      `SELECT "family_id" FROM "identity"."refresh_tokens" WHERE "family_id" = ANY($1)`,
      [[expired.id, live.id]],
    );
    expect(left).toEqual([{ family_id: live.id }]);
    expect(await repository().find(kept as string, 'web')).toMatchObject({ familyId: live.id });
  });
});
