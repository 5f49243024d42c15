import { modifyReturning } from '@fed/persistence';
import { Inject, Injectable } from '@nestjs/common';
import { SIGNALS, type Signals } from '@fed/bus';
import { MAX_CLOCK_SKEW_SECONDS } from '@fed/config';
import { DataSource, type EntityManager } from 'typeorm';
import { ArtifactStore } from '../artifacts/artifact-store';
import { type IssuedAccessToken, RefreshTokenRepository } from '../refresh-tokens/refresh-token.repository';

const TABLE = '"identity"."revoked_access_tokens"';

/**
 * Unix seconds until which a revocation is kept: services accept a token until its `exp` plus their
 * clock skew, which may be configured up to the maximum.
 */
function revokedUntil(expiresAt: Date): number {
  return Math.floor(expiresAt.getTime() / 1000) + MAX_CLOCK_SKEW_SECONDS;
}

/**
 * Revocation of access tokens and refresh-token families. The state of record is PostgreSQL; every
 * instance of every service learns of a revoked access token through `auth.token-revoked` and
 * refuses it from then on (its RevocationList).
 */
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

  /** Every refresh token of the family, the access tokens issued with them, and the provider's grant. */
  async revokeFamily(familyId: string): Promise<void> {
    const accessTokens = await this.dataSource.transaction((manager) => this.revokeFamilyWithin(manager, familyId));
    await this.revokeAccessTokens(accessTokens);
  }

  /**
   * The part of `revokeFamily` that belongs in the caller's transaction (which holds or takes the
   * family's row lock); the caller revokes the returned access tokens once it has committed.
   */
  async revokeFamilyWithin(manager: EntityManager, familyId: string): Promise<IssuedAccessToken[]> {
    const accessTokens = await this.refreshTokens.revokeFamily(manager, familyId);
    await this.artifacts.revokeByGrantId(familyId, manager);
    return accessTokens;
  }

  async revokeAccessTokens(accessTokens: readonly IssuedAccessToken[]): Promise<void> {
    for (const { jti, expiresAt } of accessTokens) await this.revokeAccessToken(jti, expiresAt);
  }

  /** Deletes entries of tokens that no service accepts any more. */
  async sweep(): Promise<number> {
    const rows = await modifyReturning<unknown>(
      this.dataSource,
      `DELETE FROM ${TABLE} WHERE "expires_at" <= now() - make_interval(secs => $1) RETURNING 1`,
      [MAX_CLOCK_SKEW_SECONDS],
    );
    return rows.length;
  }
}
