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

  /** Records consent to `scopes` (the application's scopes when the user agreed), replacing an older one. */
  async record(userId: string, clientId: string, scopes: readonly string[]): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO ${TABLE} ("user_id", "client_id", "scopes", "granted_at") VALUES ($1, $2, $3, now())
       ON CONFLICT ("user_id", "client_id") DO UPDATE SET "scopes" = EXCLUDED."scopes", "granted_at" = now()`,
      [userId, clientId, scopes],
    );
  }
}
