import { type DataSource } from 'typeorm';

/** Where a monthly count stands, as the X-RateLimit headers say it. */
export interface QuotaState {
  limit: number;
  remaining: number;
  /** The first instant of the next UTC month. */
  resetAt: Date;
  /** The month counted (its first day, `YYYY-MM-01`): a unit is given back to the month it was taken from. */
  month: string;
}

/** The bucket of tokens without a tenant (no tenant id is empty). */
export const PLATFORM_BUCKET = '';

/** Monthly counts of shared-memory queries per tenant, in `memory.query_usage`; UTC months. */
export class MemoryQuota {
  constructor(
    private readonly dataSource: DataSource,
    private readonly limit: number,
  ) {}

  /** Counts one query unless the month's limit is reached, in one statement (concurrent takers never exceed it). */
  async take(bucket: string, now = new Date()): Promise<{ granted: boolean; state: QuotaState }> {
    const month = monthOf(now);
    const rows = (await this.dataSource.query(
      `INSERT INTO "memory"."query_usage" AS u ("bucket", "month", "used") VALUES ($1, $2, 1)
       ON CONFLICT ("bucket", "month") DO UPDATE SET "used" = u."used" + 1 WHERE u."used" < $3
       RETURNING u."used"`,
      [bucket, month.start, this.limit],
    )) as { used: number }[];
    const used = rows[0]?.used;
    return {
      granted: used !== undefined,
      state: {
        limit: this.limit,
        remaining: Math.max(this.limit - (used ?? this.limit), 0),
        resetAt: month.next,
        month: month.start,
      },
    };
  }

  /** Gives back the unit `taken` counted, for a query that found nothing for the caller (it failed). */
  async giveBack(bucket: string, taken: QuotaState): Promise<QuotaState> {
    const rows = (await this.dataSource.query(
      `UPDATE "memory"."query_usage" SET "used" = "used" - 1
       WHERE "bucket" = $1 AND "month" = $2 AND "used" > 0 RETURNING "used"`,
      [bucket, taken.month],
    )) as [{ used: number }[], number];
    const used = rows[0][0]?.used ?? 0;
    return { ...taken, remaining: Math.max(this.limit - used, 0) };
  }
}

function monthOf(now: Date): { start: string; next: Date } {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  return {
    start: new Date(Date.UTC(year, month, 1)).toISOString().slice(0, 10),
    next: new Date(Date.UTC(year, month + 1, 1)),
  };
}

export function quotaHeaders(state: QuotaState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': String(state.remaining),
    'X-RateLimit-Reset': state.resetAt.toISOString(),
  };
}
