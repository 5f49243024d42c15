import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** What usage is grouped by besides the day: the model as requested, the virtual key, or the caller. */
export type GatewayUsageDimension = 'model' | 'key' | 'user';

const DIMENSION: Record<GatewayUsageDimension, string> = {
  model: '"model_name"',
  key: '"virtual_key_id"::text',
  user: '"principal"',
};

/** UTC days, both inclusive; absent filters match every bucket. */
export interface GatewayUsageSelection {
  from: string;
  to: string;
  /** Absent: every tenant's usage and that of no tenant. */
  tenantId?: string;
  model?: string;
  keyId?: string;
  user?: string;
}

/** Sums as PostgreSQL gives them (bigint and numeric as text). */
export interface GatewayUsageSums {
  requests: string;
  errors: string;
  inputTokens: string;
  outputTokens: string;
  totalTokens: string;
  cachedTokens: string;
  costUsd: string;
}

export interface GatewayUsageRows {
  /** Per day and group, by day then group. */
  days: (GatewayUsageSums & { day: string; group: string | null })[];
  /** Per group over the range. */
  groups: (GatewayUsageSums & { group: string | null })[];
  totals: GatewayUsageSums;
}

const SUMS = `coalesce(sum("requests"), 0)::text AS "requests", coalesce(sum("errors"), 0)::text AS "errors",
  coalesce(sum("input_tokens"), 0)::text AS "inputTokens", coalesce(sum("output_tokens"), 0)::text AS "outputTokens",
  coalesce(sum("total_tokens"), 0)::text AS "totalTokens", coalesce(sum("cached_tokens"), 0)::text AS "cachedTokens",
  round(coalesce(sum("cost_usd"), 0), 8)::text AS "costUsd"`;

const ZERO: GatewayUsageSums = {
  requests: '0',
  errors: '0',
  inputTokens: '0',
  outputTokens: '0',
  totalTokens: '0',
  cachedTokens: '0',
  costUsd: '0.00000000',
};

type Row = GatewayUsageSums & { day: string | null; group: string | null; level: number };

@Injectable()
export class GatewayUsageRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * One statement over the day rollup (never the log): per day and group, per group, and the totals, as grouping
   * sets. The tenant, when given, is in the WHERE clause; a month is a few rows per bucket and day.
   */
  async read(selection: GatewayUsageSelection, dimension: GatewayUsageDimension): Promise<GatewayUsageRows> {
    const values: unknown[] = [selection.from, selection.to];
    const conditions = ['"day" >= $1::date', '"day" <= $2::date'];
    const equal = (column: string, value: string | undefined) => {
      if (value === undefined) return;
      values.push(value);
      conditions.push(`${column} = $${values.length}`);
    };
    equal('"tenant_id"', selection.tenantId);
    equal('"model_name"', selection.model);
    equal('"virtual_key_id"', selection.keyId);
    equal('"principal"', selection.user);
    const group = DIMENSION[dimension];
    const rows = (await this.dataSource.query(
      `SELECT to_char("day", 'YYYY-MM-DD') AS "day", ${group} AS "group", GROUPING("day", ${group}) AS "level", ${SUMS}
         FROM "audit"."llm_gateway_usage_days"
         WHERE ${conditions.join(' AND ')}
         GROUP BY GROUPING SETS (("day", ${group}), (${group}), ())
         ORDER BY "level", "day", "group" NULLS LAST`,
      values,
    )) as Row[];
    const sums = ({ requests, errors, inputTokens, outputTokens, totalTokens, cachedTokens, costUsd }: Row) => ({
      requests,
      errors,
      inputTokens,
      outputTokens,
      totalTokens,
      cachedTokens,
      costUsd,
    });
    // GROUPING's bits: 0 is (day, group), 2 is (group), 3 is () (the day's bit is the higher one).
    return {
      days: rows
        .filter((row) => row.level === 0)
        .map((row) => ({ day: row.day as string, group: row.group, ...sums(row) })),
      groups: rows.filter((row) => row.level === 2).map((row) => ({ group: row.group, ...sums(row) })),
      totals: rows.find((row) => row.level === 3) ? sums(rows.find((row) => row.level === 3) as Row) : ZERO,
    };
  }
}
