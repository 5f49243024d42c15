import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

const TABLE = '"identity"."consents"';

@Injectable()
export class ConsentRepository {
  constructor(private readonly dataSource: DataSource) {}

  async covers(userId: string, clientId: string, scopes: readonly string[]): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM ${TABLE} WHERE "user_id" = $1 AND "client_id" = $2 AND "scopes" @> $3::text[]`,
      [userId, clientId, scopes],
    );
    return rows.length === 1;
  }

  /** Earlier scopes survive only if still in `kept`, so a scope the application lost is asked again when it returns. */
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
