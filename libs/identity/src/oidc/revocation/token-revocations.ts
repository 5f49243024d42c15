import { modifyReturning } from '@fed/persistence';
import { Inject, Injectable } from '@nestjs/common';
import { SIGNALS, type Signals } from '@fed/bus';
import { DataSource } from 'typeorm';
import { ArtifactStore } from '../artifacts/artifact-store';
import { RefreshTokenRepository } from '../refresh-tokens/refresh-token.repository';

const TABLE = '"identity"."revoked_access_tokens"';

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
    if (expiresAt.getTime() <= Date.now()) return;
    await this.dataSource.query(
      `INSERT INTO ${TABLE} ("jti", "expires_at", "revoked_at") VALUES ($1, $2, now()) ON CONFLICT ("jti") DO NOTHING`,
      [jti, expiresAt],
    );
    const exp = Math.floor(expiresAt.getTime() / 1000);
    // Retained until the token has expired (plus a minute of clock skew) for services that start later.
    await this.signals.publishRetained('auth.token-revoked', { version: 1, jti, expiresAt: exp }, exp + 60);
  }

  async isAccessTokenRevoked(jti: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(`SELECT 1 FROM ${TABLE} WHERE "jti" = $1`, [jti]);
    return rows.length > 0;
  }

  /** Every refresh token of the family, the access tokens issued with them, and the provider's grant. */
  async revokeFamily(familyId: string): Promise<void> {
    const accessTokens = await this.refreshTokens.revokeFamily(familyId);
    await this.artifacts.revokeByGrantId(familyId);
    for (const { jti, expiresAt } of accessTokens) await this.revokeAccessToken(jti, expiresAt);
  }

  /** Deletes entries of tokens that have expired anyway. */
  async sweep(): Promise<number> {
    const rows = await modifyReturning<unknown>(
      this.dataSource,
      `DELETE FROM ${TABLE} WHERE "expires_at" <= now() RETURNING 1`,
    );
    return rows.length;
  }
}
