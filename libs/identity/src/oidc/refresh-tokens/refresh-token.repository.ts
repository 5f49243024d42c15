import { modifyReturning } from '@fed/persistence';
import { Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';

const TABLE = '"identity"."refresh_tokens"';

export interface RefreshTokenRecord {
  familyId: string;
  clientId: string;
  userId: string;
  scope: string;
  sessionId: string;
  /** Unix seconds. */
  authTime: number;
  accessTokenId: string;
  accessExpiresAt: Date;
  expiresAt: Date;
  familyExpiresAt: Date;
}

export type RedeemResult =
  | { outcome: 'redeemed'; token: RefreshTokenRecord }
  /** The token was already used: whoever holds it now may have stolen it. */
  | { outcome: 'reused'; familyId: string }
  | { outcome: 'invalid' };

interface Row {
  family_id: string;
  client_id: string;
  user_id: string;
  scope: string;
  session_id: string;
  auth_time: string;
  access_token_id: string;
  access_expires_at: Date;
  expires_at: Date;
  family_expires_at: Date;
}

export function hashRefreshToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** Refresh tokens, stored as SHA-256 digests, in families that are revoked together. */
@Injectable()
export class RefreshTokenRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Stores a new token of the family and returns its value (256 random bits). */
  async issue(record: RefreshTokenRecord): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.dataSource.query(
      `INSERT INTO ${TABLE} ("token_hash", "family_id", "client_id", "user_id", "scope", "session_id", "auth_time",
         "access_token_id", "access_expires_at", "issued_at", "expires_at", "family_expires_at")
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now(), $10, $11)`,
      [
        hashRefreshToken(token),
        record.familyId,
        record.clientId,
        record.userId,
        record.scope,
        record.sessionId,
        record.authTime,
        record.accessTokenId,
        record.accessExpiresAt,
        record.expiresAt,
        record.familyExpiresAt,
      ],
    );
    return token;
  }

  /**
   * Uses the token once, atomically: of two concurrent refreshes with the same token one wins and
   * the other sees it used. A token of another client is invalid, never reused (it proves nothing).
   */
  async redeem(token: string, clientId: string): Promise<RedeemResult> {
    if (token.length > 512) return { outcome: 'invalid' };
    const hash = hashRefreshToken(token);
    const redeemed = await modifyReturning<Row>(
      this.dataSource,
      `UPDATE ${TABLE} SET "used_at" = now()
        WHERE "token_hash" = $1 AND "client_id" = $2 AND "used_at" IS NULL AND "revoked_at" IS NULL
          AND "expires_at" > now()
        RETURNING *`,
      [hash, clientId],
    );
    if (redeemed[0]) return { outcome: 'redeemed', token: toRecord(redeemed[0]) };
    const used: { family_id: string }[] = await this.dataSource.query(
      `SELECT "family_id" FROM ${TABLE}
        WHERE "token_hash" = $1 AND "client_id" = $2 AND "used_at" IS NOT NULL AND "revoked_at" IS NULL`,
      [hash, clientId],
    );
    return used[0] ? { outcome: 'reused', familyId: used[0].family_id } : { outcome: 'invalid' };
  }

  /** The family of a token of `clientId`, whatever its state; for revocation. */
  async familyOf(token: string, clientId: string): Promise<string | undefined> {
    if (token.length > 512) return undefined;
    const rows: { family_id: string }[] = await this.dataSource.query(
      `SELECT "family_id" FROM ${TABLE} WHERE "token_hash" = $1 AND "client_id" = $2`,
      [hashRefreshToken(token), clientId],
    );
    return rows[0]?.family_id;
  }

  /** Revokes every token of the family; returns the access tokens issued with them that are still unexpired. */
  async revokeFamily(familyId: string): Promise<{ jti: string; expiresAt: Date }[]> {
    const rows = await modifyReturning<{ access_token_id: string; access_expires_at: Date }>(
      this.dataSource,
      `UPDATE ${TABLE} SET "revoked_at" = now() WHERE "family_id" = $1 AND "revoked_at" IS NULL
       RETURNING "access_token_id", "access_expires_at"`,
      [familyId],
    );
    const now = Date.now();
    return rows
      .filter((row) => row.access_expires_at.getTime() > now)
      .map((row) => ({ jti: row.access_token_id, expiresAt: row.access_expires_at }));
  }

  /** Deletes tokens past their expiry; returns how many. */
  async sweep(): Promise<number> {
    const rows = await modifyReturning<unknown>(
      this.dataSource,
      `DELETE FROM ${TABLE} WHERE "expires_at" <= now() - interval '1 day' RETURNING 1`,
    );
    return rows.length;
  }
}

function toRecord(row: Row): RefreshTokenRecord {
  return {
    familyId: row.family_id,
    clientId: row.client_id,
    userId: row.user_id,
    scope: row.scope,
    sessionId: row.session_id,
    authTime: Number(row.auth_time),
    accessTokenId: row.access_token_id,
    accessExpiresAt: row.access_expires_at,
    expiresAt: row.expires_at,
    familyExpiresAt: row.family_expires_at,
  };
}
