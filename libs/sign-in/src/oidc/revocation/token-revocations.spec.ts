import { type Signals } from '@fed/bus';
import { MAX_CLOCK_SKEW_SECONDS } from '@fed/config';
import { useTestDatabase } from '@fed/persistence/testing';
import { type SignalPayloads } from '@fed/contracts';
import { randomUUID } from 'node:crypto';
import { ArtifactStore } from '../artifacts/artifact-store';
import { RefreshTokenRepository } from '../refresh-tokens/refresh-token.repository';
import { TokenRevocations } from './token-revocations';

interface Retained {
  payload: SignalPayloads['auth.token-revoked'];
  untilSeconds: number;
}

/** Real PostgreSQL; the signals port records what would be retained. */
describe('access-token revocations are kept while a service may still accept the token', () => {
  const database = useTestDatabase();
  let retained: Retained[];
  let revocations: TokenRevocations;

  beforeEach(() => {
    retained = [];
    const signals = {
      publishRetained: async (_topic: string, payload: Retained['payload'], untilSeconds: number) => {
        retained.push({ payload, untilSeconds });
      },
    } as unknown as Signals;
    const { dataSource } = database;
    revocations = new TokenRevocations(
      dataSource,
      new RefreshTokenRepository(dataSource),
      new ArtifactStore(dataSource),
      signals,
    );
  });

  const secondsFromNow = (seconds: number) => Math.floor(Date.now() / 1000) + seconds;

  it('retains the auth.token-revoked signal until exp plus the largest clock skew a service may be given', async () => {
    const jti = randomUUID();
    const exp = secondsFromNow(120);
    await revocations.revokeAccessToken(jti, new Date(exp * 1000));
    expect(retained).toEqual([
      { payload: { version: 1, jti, expiresAt: exp }, untilSeconds: exp + MAX_CLOCK_SKEW_SECONDS },
    ]);
    expect(await revocations.isAccessTokenRevoked(jti)).toBe(true);
  });

  it('revokes a token past its exp that a service allowing the largest skew still accepts, and none older', async () => {
    const accepted = randomUUID();
    const exp = secondsFromNow(-10);
    await revocations.revokeAccessToken(accepted, new Date(exp * 1000));
    expect(retained).toEqual([
      { payload: expect.objectContaining({ jti: accepted }), untilSeconds: exp + MAX_CLOCK_SKEW_SECONDS },
    ]);
    expect(await revocations.isAccessTokenRevoked(accepted)).toBe(true);

    const refusedAnyway = randomUUID();
    await revocations.revokeAccessToken(refusedAnyway, new Date(secondsFromNow(-MAX_CLOCK_SKEW_SECONDS - 1) * 1000));
    expect(retained).toHaveLength(1);
    expect(await revocations.isAccessTokenRevoked(refusedAnyway)).toBe(false);
  });

  it('sweeps a revocation only once its token is past exp plus the largest skew', async () => {
    const [kept, swept] = [randomUUID(), randomUUID()];
    await database.dataSource.query(
      `INSERT INTO "identity"."revoked_access_tokens" ("jti", "expires_at", "revoked_at")
       VALUES ($1, now() - interval '10 seconds', now()), ($2, now() - make_interval(secs => $3 + 1), now())`,
      [kept, swept, MAX_CLOCK_SKEW_SECONDS],
    );
    expect(await revocations.sweep()).toBe(1);
    expect(await revocations.isAccessTokenRevoked(kept)).toBe(true);
    expect(await revocations.isAccessTokenRevoked(swept)).toBe(false);
  });
});
