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
 * Rows of a page narrowed by equal columns (quoted snake_case names, values bound as parameters). Their
 * total is the sum of `countedAs`'s day counts when one counts exactly these rows, else a count(*) (the
 * table needs an index that leads with the column).
 */
export interface LogPageFilter {
  equals: readonly { column: string; value: string }[];
  countedAs?: string;
}

/** Who reads a log: the caller's tenant (`tenant.id` of the token), absent for a token without one. */
export interface LogReader {
  tenantId?: string;
}

/**
 * What a reader of a log may see: the caller's tenant's rows only (counted under `<log>:<tenantId>`, which
 * the tables' triggers keep), or, for a token without a tenant (the platform operator's), every row, those
 * without a tenant included.
 */
export function tenantScope(log: LogTable['log'], tenantId: string | undefined): LogPageFilter | undefined {
  if (tenantId === undefined) return undefined;
  return { equals: [{ column: '"tenant_id"', value: tenantId }], countedAs: `${log}:${tenantId}` };
}

const day = (instant: Date) => instant.toISOString().slice(0, 10);

/**
 * One page of a log, newest first by `created_at` (then id), within a range of whole UTC days, and
 * the number of rows in that range. The page walks the table's (created_at, id) index; the total is
 * a sum of the day counts the table's triggers keep, so neither grows with the table (a deep page
 * still skips `offset` index entries).
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
  // One snapshot for both (REPEATABLE READ): read apart, a row committed between them was counted but
  // not listed (or listed but not counted).
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
