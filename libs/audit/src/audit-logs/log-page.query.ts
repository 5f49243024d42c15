import { type DayRange, type NumberedPageParams } from '@fed/contracts';
import { type DataSource } from 'typeorm';

export interface LogPage<Row> {
  rows: Row[];
  total: number;
}

/** A log table and its name in `audit.log_day_counts`. */
export interface LogTable {
  table: string;
  log: 'audit' | 'gateway' | 'llm' | 'access' | 'guardrail';
}

/**
 * Equal-column filters (quoted snake_case names, bound values). The total sums `countedAs`'s day counts
 * when given, else is a count(*), which needs an index leading with the column.
 */
export interface LogPageFilter {
  equals: readonly { column: string; value: string }[];
  countedAs?: string;
}

export interface LogReader {
  tenantId?: string;
}

/** A tenant's rows, counted under `<log>:<tenantId>` by the triggers; a token without a tenant sees every row. */
export function tenantScope(log: LogTable['log'], tenantId: string | undefined): LogPageFilter | undefined {
  if (tenantId === undefined) return undefined;
  return { equals: [{ column: '"tenant_id"', value: tenantId }], countedAs: `${log}:${tenantId}` };
}

const day = (instant: Date) => instant.toISOString().slice(0, 10);

/**
 * Newest first within whole UTC days, with the range's total. The page walks the (created_at, id) index and
 * the total sums trigger-kept day counts, so neither grows with the table.
 */
export async function readLogPage<Row>(
  dataSource: Pick<DataSource, 'transaction'>,
  { table, log }: LogTable,
  columns: string,
  range: DayRange,
  page: NumberedPageParams,
  filter?: LogPageFilter,
): Promise<LogPage<Row>> {
  const rowConditions: string[] = [];
  const dayConditions = ['"log" = $1'];
  const rowValues: unknown[] = [];
  const dayValues: unknown[] = [filter?.countedAs ?? log];
  for (const { column, value } of filter?.equals ?? []) {
    rowValues.push(value);
    rowConditions.push(`${column} = $${rowValues.length}`);
  }
  const counted = (filter?.equals.length ?? 0) > 0 && !filter?.countedAs;
  if (range.since) {
    rowValues.push(range.since);
    rowConditions.push(`"created_at" >= $${rowValues.length}`);
    dayValues.push(day(range.since));
    dayConditions.push(`"day" >= $${dayValues.length}::date`);
  }
  if (range.until) {
    rowValues.push(range.until);
    rowConditions.push(`"created_at" < $${rowValues.length}`);
    dayValues.push(day(range.until));
    dayConditions.push(`"day" < $${dayValues.length}::date`);
  }
  const where = rowConditions.length > 0 ? `WHERE ${rowConditions.join(' AND ')}` : '';
  // One REPEATABLE READ snapshot: read apart, a row committed in between could be counted but not listed.
  const [rows, totals] = await dataSource.transaction('REPEATABLE READ', async (manager) => [
    (await manager.query(
      `SELECT ${columns} FROM ${table} ${where} ORDER BY "created_at" DESC, "id" DESC LIMIT $${rowValues.length + 1} OFFSET $${rowValues.length + 2}`,
      [...rowValues, page.limit, page.offset],
    )) as Row[],
    (await (counted
      ? manager.query(`SELECT count(*) AS "total" FROM ${table} ${where}`, rowValues)
      : manager.query(
          `SELECT coalesce(sum("row_count"), 0)::bigint AS "total" FROM "audit"."log_day_counts" WHERE ${dayConditions.join(' AND ')}`,
          dayValues,
        ))) as { total: string }[],
  ]);
  return { rows, total: Number(totals[0]?.total ?? 0) };
}
