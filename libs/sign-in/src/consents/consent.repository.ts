import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

const TABLE = '"identity"."consents"';

@Injectable()
export class ConsentRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** True when the user consented to every one of `scopes` for this application. */
  async covers(userId: string, clientId: string, scopes: readonly string[]): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM ${TABLE} WHERE "user_id" = $1 AND "client_id" = $2 AND "scopes" @> $3::text[]`,
      [userId, clientId, scopes],
    );
    return rows.length === 1;
  }

  /**
   * Records consent to `scopes` (what the consent page showed), added to the scopes agreed before that
   * are still among `kept` (those the application still has for the user): a scope the application
   * lost, or the user may no longer hold, is asked again when it comes back.
   */
  async record(userId: string, clientId: string, scopes: readonly string[], kept: readonly string[]): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO ${TABLE} AS "consent" ("user_id", "client_id", "scopes", "granted_at") VALUES ($1, $2, $3, now())
       ON CONFLICT ("user_id", "client_id") DO UPDATE SET
         "scopes" = ARRAY(SELECT DISTINCT "scope" FROM unnest("consent"."scopes" || EXCLUDED."scopes") AS "scope"
                           WHERE "scope" = ANY(EXCLUDED."scopes") OR "scope" = ANY($4::text[]) ORDER BY "scope"),
         "granted_at" = now()`,
      [userId, clientId, scopes, kept],
    );
  }
}
