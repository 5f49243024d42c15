import { modifyReturning } from '@fed/persistence';
import { Inject, Injectable } from '@nestjs/common';
import { SIGNALS, type Signals } from '@fed/bus';
import { MAX_CLOCK_SKEW_SECONDS } from '@fed/config';
import { DataSource, type EntityManager } from 'typeorm';
import { ArtifactStore } from '../artifacts/artifact-store';
import { type IssuedAccessToken, RefreshTokenRepository } from '../refresh-tokens/refresh-token.repository';

const TABLE = '"identity"."revoked_access_tokens"';

/** Services accept a token until `exp` plus their clock skew, configurable up to the maximum. */
function revokedUntil(expiresAt: Date): number {
  return Math.floor(expiresAt.getTime() / 1000) + MAX_CLOCK_SKEW_SECONDS;
}

/** PostgreSQL is the record; every service instance learns of revoked access tokens via `auth.token-revoked`. */
@Injectable()
export class TokenRevocations {
  constructor(
    private readonly dataSource: DataSource,
    private readonly refreshTokens: RefreshTokenRepository,
    private readonly artifacts: ArtifactStore,
    @Inject(SIGNALS) private readonly signals: Signals,
  ) {}

  async revokeAccessToken(jti: string, expiresAt: Date): Promise<void> {
    const until = revokedUntil(expiresAt);
    if (until * 1000 <= Date.now()) return;
    await this.dataSource.query(
      `INSERT INTO ${TABLE} ("jti", "expires_at", "revoked_at") VALUES ($1, $2, now()) ON CONFLICT ("jti") DO NOTHING`,
      [jti, expiresAt],
    );
    const exp = Math.floor(expiresAt.getTime() / 1000);
    await this.signals.publishRetained('auth.token-revoked', { version: 1, jti, expiresAt: exp }, until);
  }

  async isAccessTokenRevoked(jti: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(`SELECT 1 FROM ${TABLE} WHERE "jti" = $1`, [jti]);
    return rows.length > 0;
  }

  async revokeFamily(familyId: string): Promise<void> {
    const accessTokens = await this.dataSource.transaction((manager) => this.revokeFamilyWithin(manager, familyId));
    await this.revokeAccessTokens(accessTokens);
  }

  /** The caller's transaction holds the family lock; it revokes the returned access tokens after committing. */
  async revokeFamilyWithin(manager: EntityManager, familyId: string): Promise<IssuedAccessToken[]> {
    const accessTokens = await this.refreshTokens.revokeFamily(manager, familyId);
    await this.artifacts.revokeByGrantId(familyId, manager);
    return accessTokens;
  }

  async revokeAccessTokens(accessTokens: readonly IssuedAccessToken[]): Promise<void> {
    for (const { jti, expiresAt } of accessTokens) await this.revokeAccessToken(jti, expiresAt);
  }

  async sweep(): Promise<number> {
    const rows = await modifyReturning<unknown>(
      this.dataSource,
      `DELETE FROM ${TABLE} WHERE "expires_at" <= now() - make_interval(secs => $1) RETURNING 1`,
      [MAX_CLOCK_SKEW_SECONDS],
    );
    return rows.length;
  }
}
