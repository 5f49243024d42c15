import { modifyReturning } from '@fed/persistence';
import { Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';

const TOKENS = '"identity"."refresh_tokens"';
const FAMILIES = '"identity"."token_families"';
// Kept a day past their expiry: a used token presented late is still detected as reused.
const KEPT_AFTER_EXPIRY = "interval '1 day'";

/** Its row is locked by whatever redeems, stores or revokes its tokens. */
export interface TokenFamily {
  id: string;
  clientId: string;
  userId: string;
  /** The session maximum. */
  expiresAt: Date;
}

export interface RefreshTokenRecord {
  familyId: string;
  clientId: string;
  userId: string;
  scope: string;
  /** Undefined: `aud: broker`. */
  resource?: string;
  sessionId: string;
  authTime: number;
  /** Revoked with the family. */
  accessTokenId: string;
  accessExpiresAt: Date;
  expiresAt: Date;
}

export interface StoredRefreshToken extends RefreshTokenRecord {
  familyExpiresAt: Date;
}

/** `reused`: whoever holds the token now may have stolen it. */
export type Redemption = 'redeemed' | 'reused' | 'invalid';

export interface IssuedAccessToken {
  jti: string;
  expiresAt: Date;
}

interface Row {
  family_id: string;
  client_id: string;
  user_id: string;
  scope: string;
  resource: string | null;
  session_id: string;
  auth_time: number;
  access_token_id: string;
  access_expires_at: Date;
  expires_at: Date;
  family_expires_at: Date;
}

export function hashRefreshToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** Redeem, store and revoke hold the family's row lock (`withinFamily`): no token enters a family being revoked. */
@Injectable()
export class RefreshTokenRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Used or not, expired or not; read without a lock. */
  async find(token: string, clientId: string): Promise<StoredRefreshToken | undefined> {
    if (token.length > 512) return undefined;
    const rows: Row[] = await this.dataSource.query(
      `SELECT "token".*, "family"."expires_at" AS "family_expires_at"
         FROM ${TOKENS} AS "token" JOIN ${FAMILIES} AS "family" ON "family"."id" = "token"."family_id"
        WHERE "token"."token_hash" = $1 AND "token"."client_id" = $2 AND "token"."revoked_at" IS NULL`,
      [hashRefreshToken(token), clientId],
    );
    return rows[0] && toStored(rows[0]);
  }

  async familyOf(token: string, clientId: string): Promise<string | undefined> {
    if (token.length > 512) return undefined;
    const rows: { family_id: string }[] = await this.dataSource.query(
      `SELECT "family_id" FROM ${TOKENS} WHERE "token_hash" = $1 AND "client_id" = $2`,
      [hashRefreshToken(token), clientId],
    );
    return rows[0]?.family_id;
  }

  async familiesOfSession(sessionId: string, userId: string): Promise<string[]> {
    const rows: { family_id: string }[] = await this.dataSource.query(
      `SELECT DISTINCT "family_id" FROM ${TOKENS}
        WHERE "session_id" = $1 AND "user_id" = $2 AND "revoked_at" IS NULL`,
      [sessionId, userId],
    );
    return rows.map((row) => row.family_id);
  }

  /**
   * `revoked` (and `work` not run) when the family is revoked or swept. `work` must run every query on the given
   * manager: the embedded PostgreSQL serves no other connection meanwhile.
   */
  withinFamily<T>(family: TokenFamily | string, work: (manager: EntityManager) => Promise<T>): Promise<T | 'revoked'> {
    return this.dataSource.transaction(async (manager) => {
      if (typeof family !== 'string') {
        await manager.query(
          `INSERT INTO ${FAMILIES} ("id", "client_id", "user_id", "created_at", "expires_at")
           VALUES ($1, $2, $3, now(), $4) ON CONFLICT ("id") DO NOTHING`,
          [family.id, family.clientId, family.userId, family.expiresAt],
        );
      }
      const [row]: { revoked: boolean }[] = await manager.query(
        `SELECT "revoked_at" IS NOT NULL AS "revoked" FROM ${FAMILIES} WHERE "id" = $1 FOR UPDATE`,
        [typeof family === 'string' ? family : family.id],
      );
      return row && !row.revoked ? work(manager) : 'revoked';
    });
  }

  /** Of two concurrent refreshes one redeems, one finds it reused; another client's token is invalid, never reused. */
  async redeem(manager: EntityManager, token: string, clientId: string): Promise<Redemption> {
    // The outer SELECT sees the row as it was before the UPDATE: used already, or not.
    const rows: { redeemed: boolean; used: boolean }[] = await manager.query(
      `WITH "redeemed" AS (
         UPDATE ${TOKENS} SET "used_at" = now()
          WHERE "token_hash" = $1 AND "client_id" = $2 AND "used_at" IS NULL AND "revoked_at" IS NULL
            AND "expires_at" > now()
          RETURNING 1)
       SELECT EXISTS (SELECT 1 FROM "redeemed") AS "redeemed", "used_at" IS NOT NULL AS "used"
         FROM ${TOKENS} WHERE "token_hash" = $1 AND "client_id" = $2 AND "revoked_at" IS NULL`,
      [hashRefreshToken(token), clientId],
    );
    if (rows[0]?.redeemed) return 'redeemed';
    return rows[0]?.used ? 'reused' : 'invalid';
  }

  async issue(manager: EntityManager, record: RefreshTokenRecord): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await manager.query(
      `INSERT INTO ${TOKENS} ("token_hash", "family_id", "client_id", "user_id", "scope", "resource", "session_id",
         "auth_time", "access_token_id", "access_expires_at", "issued_at", "expires_at")
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now(), $11)`,
      [
        hashRefreshToken(token),
        record.familyId,
        record.clientId,
        record.userId,
        record.scope,
        record.resource ?? null,
        record.sessionId,
        record.authTime,
        record.accessTokenId,
        record.accessExpiresAt,
        record.expiresAt,
      ],
    );
    return token;
  }

  /** Takes the row lock if the caller holds none yet; returns the access tokens issued with the family. */
  async revokeFamily(manager: EntityManager, familyId: string): Promise<IssuedAccessToken[]> {
    await manager.query(`UPDATE ${FAMILIES} SET "revoked_at" = coalesce("revoked_at", now()) WHERE "id" = $1`, [
      familyId,
    ]);
    const rows = await modifyReturning<{ access_token_id: string; access_expires_at: Date }>(
      manager,
      `UPDATE ${TOKENS} SET "revoked_at" = now() WHERE "family_id" = $1 AND "revoked_at" IS NULL
       RETURNING "access_token_id", "access_expires_at"`,
      [familyId],
    );
    return rows.map((row) => ({ jti: row.access_token_id, expiresAt: row.access_expires_at }));
  }

  async sweep(): Promise<{ refreshTokens: number; tokenFamilies: number }> {
    // One after the other: both statements delete tokens, and concurrently they could deadlock.
    const refreshTokens = await modifyReturning<unknown>(
      this.dataSource,
      `DELETE FROM ${TOKENS} WHERE "expires_at" <= now() - ${KEPT_AFTER_EXPIRY} RETURNING 1`,
    );
    const tokenFamilies = await modifyReturning<unknown>(
      this.dataSource,
      `DELETE FROM ${FAMILIES} WHERE "expires_at" <= now() - ${KEPT_AFTER_EXPIRY} RETURNING 1`,
    );
    return { refreshTokens: refreshTokens.length, tokenFamilies: tokenFamilies.length };
  }
}

function toStored(row: Row): StoredRefreshToken {
  return {
    familyId: row.family_id,
    clientId: row.client_id,
    userId: row.user_id,
    scope: row.scope,
    ...(row.resource !== null ? { resource: row.resource } : {}),
    sessionId: row.session_id,
    authTime: Number(row.auth_time),
    accessTokenId: row.access_token_id,
    accessExpiresAt: row.access_expires_at,
    expiresAt: row.expires_at,
    familyExpiresAt: row.family_expires_at,
  };
}
