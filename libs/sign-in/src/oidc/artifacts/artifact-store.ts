import { modifyReturning } from '@fed/persistence';
import { Injectable } from '@nestjs/common';
import { type AdapterPayload } from 'oidc-provider';
import { DataSource, type EntityManager } from 'typeorm';

const TABLE = '"identity"."oidc_artifacts"';

/** oidc-provider's adapter storage; a read never returns an expired row. */
@Injectable()
export class ArtifactStore {
  constructor(private readonly dataSource: DataSource) {}

  async upsert(model: string, id: string, payload: AdapterPayload, expiresInSeconds: number): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO ${TABLE} ("model", "id", "payload", "grant_id", "uid", "expires_at")
       VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6::double precision))
       ON CONFLICT ("model", "id") DO UPDATE
         SET "payload" = EXCLUDED."payload", "grant_id" = EXCLUDED."grant_id", "uid" = EXCLUDED."uid",
             "expires_at" = EXCLUDED."expires_at"`,
      [model, id, payload, payload.grantId ?? null, payload.uid ?? null, expiresInSeconds],
    );
  }

  find(model: string, id: string): Promise<AdapterPayload | undefined> {
    return this.findOne(model, '"id"', id);
  }

  findByUid(model: string, uid: string): Promise<AdapterPayload | undefined> {
    return this.findOne(model, '"uid"', uid);
  }

  private async findOne(model: string, column: '"id"' | '"uid"', value: string): Promise<AdapterPayload | undefined> {
    const rows: { payload: AdapterPayload; consumed: number | null }[] = await this.dataSource.query(
      `SELECT "payload", extract(epoch FROM "consumed_at")::int AS "consumed" FROM ${TABLE}
        WHERE "model" = $1 AND ${column} = $2 AND "expires_at" > now()`,
      [model, value],
    );
    const row = rows[0];
    if (!row) return undefined;
    return row.consumed === null ? row.payload : { ...row.payload, consumed: row.consumed };
  }

  /** True only for the first caller. */
  async consume(model: string, id: string, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    const rows = await modifyReturning<unknown>(
      manager,
      `UPDATE ${TABLE} SET "consumed_at" = now()
        WHERE "model" = $1 AND "id" = $2 AND "consumed_at" IS NULL AND "expires_at" > now() RETURNING 1`,
      [model, id],
    );
    return rows.length === 1;
  }

  async destroy(model: string, id: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM ${TABLE} WHERE "model" = $1 AND "id" = $2`, [model, id]);
  }

  async revokeByGrantId(grantId: string, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.query(`DELETE FROM ${TABLE} WHERE "grant_id" = $1 OR ("model" = 'Grant' AND "id" = $1)`, [grantId]);
  }

  async sweep(): Promise<number> {
    const rows = await modifyReturning<unknown>(
      this.dataSource,
      `DELETE FROM ${TABLE} WHERE "expires_at" <= now() RETURNING 1`,
    );
    return rows.length;
  }
}
