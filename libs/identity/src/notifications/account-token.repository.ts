import { Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { type AccountTokenPurpose } from './account-token.entity';

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
 * Consuming is one conditional UPDATE (`used_at IS NULL AND expires_at > now()`) that also makes the change it
 * unlocks, so of two concurrent clicks exactly one wins; it also ends the user's other tokens of that purpose.
 */
@Injectable()
export class AccountTokenRepository {
  constructor(private readonly dataSource: DataSource) {}

  async issue(userId: string, purpose: AccountTokenPurpose, ttlSeconds: number): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.dataSource.query(
      `INSERT INTO "identity"."account_tokens" ("token_hash", "user_id", "purpose", "created_at", "expires_at")
       VALUES ($1, $2, $3, now(), now() + make_interval(secs => $4))`,
      [digest(token), userId, purpose, ttlSeconds],
    );
    return token;
  }

  /** Without using it (a page showing the form the token unlocks). */
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

  /** Verifies the address and moves `unverified` to `pending` (an administrator approves next). */
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
   * Stores the new hash and ends every session of the user in the same statement. Following the link proved
   * the address, so it is verified too.
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

  async sweep(): Promise<number> {
    const [, deleted] = (await this.dataSource.query(
      `DELETE FROM "identity"."account_tokens" WHERE "expires_at" < now() - interval '${KEEP_AFTER_EXPIRY}'`,
    )) as [unknown, number];
    return deleted;
  }
}

/** Opening CTEs ($1: the token's digest): `consumed` holds the user of a usable token; siblings are used up too. */
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
