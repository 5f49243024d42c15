import { Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { type AccountTokenPurpose } from './account-token.entity';

/** What a link's token is now: usable (by whom), or why not. */
export type AccountTokenState =
  { usable: true; userId: string } | { usable: false; reason: 'used' | 'expired' | 'unknown' };

// 256 random bits, base64url: what a link carries.
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
// A used or expired row is kept this long, so a late click is told "used" or "expired", then swept.
const KEEP_AFTER_EXPIRY = '7 days';

function digest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * The tokens of e-mail links. Each is used at most once: consuming one is a single conditional UPDATE
 * (`used_at IS NULL AND expires_at > now()`), so of two clicks at once exactly one gets through, and
 * the change it unlocks is made in that same statement. Using one also ends the user's other unused
 * tokens of the same purpose: the newest link sent does not leave older ones open.
 */
@Injectable()
export class AccountTokenRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** A new token of `userId`; only its digest is stored. */
  async issue(userId: string, purpose: AccountTokenPurpose, ttlSeconds: number): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.dataSource.query(
      `INSERT INTO "identity"."account_tokens" ("token_hash", "user_id", "purpose", "created_at", "expires_at")
       VALUES ($1, $2, $3, now(), now() + make_interval(secs => $4))`,
      [digest(token), userId, purpose, ttlSeconds],
    );
    return token;
  }

  /** The token's state, without using it (a page that shows the form the token unlocks). */
  async state(token: string, purpose: AccountTokenPurpose): Promise<AccountTokenState> {
    if (!TOKEN.test(token)) return { usable: false, reason: 'unknown' };
    const [row] = (await this.dataSource.query(
      `SELECT "user_id" AS "userId", "used_at" IS NOT NULL AS "used", "expires_at" <= now() AS "expired"
         FROM "identity"."account_tokens" WHERE "token_hash" = $1 AND "purpose" = $2`,
      [digest(token), purpose],
    )) as { userId: string; used: boolean; expired: boolean }[];
    if (!row) return { usable: false, reason: 'unknown' };
    if (row.used) return { usable: false, reason: 'used' };
    if (row.expired) return { usable: false, reason: 'expired' };
    return { usable: true, userId: row.userId };
  }

  /**
   * Uses an e-mail verification token: the address is verified and an `unverified` user becomes
   * `pending` (an administrator approves next). The user's id, or undefined when the token was not usable.
   */
  async verifyEmail(token: string): Promise<string | undefined> {
    if (!TOKEN.test(token)) return undefined;
    const rows = (await this.dataSource.query(
      `${consume('email_verification')}
       UPDATE "identity"."users"
          SET "email_verified" = true, "updated_at" = now(),
              "status" = CASE WHEN "status" = 'unverified' THEN 'pending' ELSE "status" END
        WHERE "id" IN (SELECT "user_id" FROM "consumed")
    RETURNING "id"`,
      [digest(token)],
    )) as [{ id: string }[], number];
    return rows[0][0]?.id;
  }

  /**
   * Uses a password reset token: the new password hash is stored and every session of the user ends
   * in the same statement (tokens issued before `at` are refused, refresh-token families revoked, the
   * provider's sessions and grants deleted). Following the link proved the address, so it is verified
   * too. The user's id, or undefined when the token was not usable.
   */
  async resetPassword(token: string, passwordHash: string, at: Date): Promise<string | undefined> {
    if (!TOKEN.test(token)) return undefined;
    const rows = (await this.dataSource.query(
      `${consume('password_reset')},
       "changed" AS (
         UPDATE "identity"."users"
            SET "password_hash" = $2, "sessions_valid_after" = $3, "updated_at" = $3, "email_verified" = true,
                "status" = CASE WHEN "status" = 'unverified' THEN 'pending' ELSE "status" END
          WHERE "id" IN (SELECT "user_id" FROM "consumed")
      RETURNING "id"
       ), "families" AS (
         UPDATE "identity"."token_families" SET "revoked_at" = coalesce("revoked_at", $3)
          WHERE "user_id" IN (SELECT "id" FROM "changed")
      RETURNING "id"
       ), "refresh_tokens" AS (
         UPDATE "identity"."refresh_tokens" SET "revoked_at" = $3
          WHERE "family_id" IN (SELECT "id" FROM "families") AND "revoked_at" IS NULL
       ), "artifacts" AS (
         DELETE FROM "identity"."oidc_artifacts" WHERE "payload"->>'accountId' IN (SELECT "id"::text FROM "changed")
       )
       SELECT "id" FROM "changed"`,
      [digest(token), passwordHash, at],
    )) as { id: string }[];
    return rows[0]?.id;
  }

  /** Deletes the rows a week after their expiry. */
  async sweep(): Promise<number> {
    const [, deleted] = (await this.dataSource.query(
      `DELETE FROM "identity"."account_tokens" WHERE "expires_at" < now() - interval '${KEEP_AFTER_EXPIRY}'`,
    )) as [unknown, number];
    return deleted;
  }
}

/**
 * The opening CTEs of a consuming statement ($1: the token's digest): `consumed` holds the user of a
 * usable token, now used; the user's other unused tokens of the purpose are used up with it.
 */
function consume(purpose: AccountTokenPurpose): string {
  return `WITH "consumed" AS (
         UPDATE "identity"."account_tokens" SET "used_at" = now()
          WHERE "token_hash" = $1 AND "purpose" = '${purpose}' AND "used_at" IS NULL AND "expires_at" > now()
      RETURNING "user_id"
       ), "siblings" AS (
         UPDATE "identity"."account_tokens" SET "used_at" = now()
          WHERE "user_id" IN (SELECT "user_id" FROM "consumed") AND "purpose" = '${purpose}'
            AND "used_at" IS NULL AND "token_hash" <> $1
       )`;
}
