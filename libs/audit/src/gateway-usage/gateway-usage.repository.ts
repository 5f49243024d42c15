import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** What usage is grouped by besides the day: the model as requested, the virtual key, or the caller. */
export type GatewayUsageDimension = 'model' | 'key' | 'user';

const DIMENSION: Record<GatewayUsageDimension, string> = {
  model: '"model_name"',
  key: '"virtual_key_id"',
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

/** One day and group's sums as PostgreSQL gives them (bigint and numeric as text, so nothing is rounded). */
export interface GatewayUsageDayRow {
  day: string;
  group: string | null;
  requests: string;
  errors: string;
  inputTokens: string;
  outputTokens: string;
  totalTokens: string;
  cachedTokens: string;
  costUsd: string;
}

@Injectable()
export class GatewayUsageRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * A day rollup (never the log) summed per day and group; the tenant, when given, is in the WHERE clause. The
   * narrowest table that holds the grouping and the filters: by model, or by caller (key and principal), else the
   * fine one. A month is then a row per model (or caller), tenant and day, read through the (day, ...) or
   * (tenant_id, day) index.
   */
  async days(selection: GatewayUsageSelection, dimension: GatewayUsageDimension): Promise<GatewayUsageDayRow[]> {
    const table =
      dimension === 'model' && selection.keyId === undefined && selection.user === undefined
        ? '"audit"."llm_gateway_usage_model_days"'
        : dimension !== 'model' && selection.model === undefined
          ? '"audit"."llm_gateway_usage_caller_days"'
          : '"audit"."llm_gateway_usage_days"';
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
    return (await this.dataSource.query(
      // Grouped by the columns themselves; texts are made of the few grouped rows only.
      `SELECT to_char("day", 'YYYY-MM-DD') AS "day", ${group}::text AS "group", sum("requests")::text AS "requests",
              sum("errors")::text AS "errors", sum("input_tokens")::text AS "inputTokens",
              sum("output_tokens")::text AS "outputTokens", sum("total_tokens")::text AS "totalTokens",
              sum("cached_tokens")::text AS "cachedTokens", sum("cost_usd")::text AS "costUsd"
         FROM ${table}
         WHERE ${conditions.join(' AND ')}
         GROUP BY "day", ${group}`,
      values,
    )) as GatewayUsageDayRow[];
  }
}
