import { type DayRange, dayRange } from '@fed/contracts';
import { LogPageQueryDto, withCode } from '@fed/server';
import { type Request, type Response } from 'express';
import { IsIn } from 'class-validator';
import { once } from 'node:events';
import { type DataSource } from 'typeorm';

export const EXPORT_FORMATS = ['csv', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Rows read a query at a time, newest first; a chunk is one short query, so no transaction stays open. */
export const EXPORT_CHUNK = 1000;

/** `GET /v1/admin/<log>/export`: `format` and the list's `from`/`to` (its `limit` and `page` are ignored). */
export class LogExportQueryDto extends LogPageQueryDto {
  @IsIn(EXPORT_FORMATS, withCode('invalid_parameter', 'format must be csv or jsonl'))
  format!: ExportFormat;
}

/** A log as the export reads it: its table, the list's record shape and that record's field order. */
export interface LogExportSource<Item> {
  /** Quoted schema and table, e.g. `"audit"."audit_logs"`. */
  table: string;
  /** The file's name before the range and extension, e.g. `audit-logs`. */
  name: string;
  /** The CSV header: the record's fields in the list's order. */
  fields: readonly (keyof Item & string)[];
  /** The row (snake_case columns turned camelCase, as the list's repository aliases them) to the list's record. */
  toRecord(row: never): Item;
}

export interface LogExportRequest {
  format: ExportFormat;
  range: DayRange;
  /** Equal-column filters (quoted snake_case names, bound values): the list's tenant scope and filters. */
  equals: readonly { column: string; value: string }[];
  /** Days as asked, for the file name. */
  from?: string;
  to?: string;
}

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV cell (RFC 4180): null is empty, objects are JSON; a string starting with = + - @ tab or CR gets a
 * leading apostrophe so a spreadsheet shows it as text rather than running it as a formula.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(cells: readonly unknown[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

const camel = (column: string) => column.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());

function camelRow(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) if (!column.startsWith('__')) out[camel(column)] = value;
  return out;
}

export function exportFileName(name: string, format: ExportFormat, from?: string, to?: string): string {
  return `${name}_${from ?? 'start'}_${to ?? 'today'}.${format}`;
}

/**
 * Streams the log's rows in the range (newest first) as CSV or JSON lines. Keyset pages over
 * (created_at, id), the list's index, `EXPORT_CHUNK` rows a query; the cursor keeps created_at as text, so
 * microseconds survive the round trip. Writes wait for the socket to drain, and a client that goes away stops
 * the next query. Bad parameters are refused (400) by the pipe before any byte is sent; an error after the
 * headers ends the response abruptly, so a cut-off file is never mistaken for a whole one.
 */
export async function streamLogExport<Item>(
  dataSource: Pick<DataSource, 'query'>,
  source: LogExportSource<Item>,
  request: LogExportRequest,
  http: { req: Request; res: Response; onError?(error: unknown): void },
): Promise<void> {
  const { res, req } = http;
  let gone = false;
  const stop = () => {
    gone = true;
  };
  req.once('close', () => {
    if (!res.writableFinished) stop();
  });
  res.once('close', () => {
    if (!res.writableFinished) stop();
  });

  const fileName = exportFileName(source.name, request.format, request.from, request.to);
  res.status(200);
  res.setHeader(
    'content-type',
    request.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/jsonl; charset=utf-8',
  );
  res.setHeader('content-disposition', `attachment; filename="${fileName}"`);
  res.setHeader('cache-control', 'no-store');
  res.setHeader('x-content-type-options', 'nosniff');

  const write = async (text: string) => {
    if (!res.write(text)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
  };

  const conditions: string[] = [];
  const values: unknown[] = [];
  for (const { column, value } of request.equals) {
    values.push(value);
    conditions.push(`${column} = $${values.length}`);
  }
  if (request.range.since) {
    values.push(request.range.since);
    conditions.push(`"created_at" >= $${values.length}`);
  }
  if (request.range.until) {
    values.push(request.range.until);
    conditions.push(`"created_at" < $${values.length}`);
  }

  try {
    // A UTF-8 byte order mark, so spreadsheet programs read the CSV's non-ASCII text as UTF-8.
    if (request.format === 'csv') await write(`\uFEFF${csvLine(source.fields)}`);
    let cursor: { at: string; id: string } | undefined;
    while (!gone) {
      const where = [...conditions];
      const params = [...values];
      if (cursor) {
        params.push(cursor.at, cursor.id);
        where.push(`("created_at", "id") < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
      }
      params.push(EXPORT_CHUNK);
      const rows = (await dataSource.query(
        `SELECT *, "created_at"::text AS "__at", "id"::text AS "__id" FROM ${source.table}
         ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
         ORDER BY "created_at" DESC, "id" DESC LIMIT $${params.length}`,
        params,
      )) as ({ __at: string; __id: string } & Record<string, unknown>)[];
      if (gone) break;
      let chunk = '';
      for (const row of rows) {
        const record = source.toRecord(camelRow(row) as never) as { [field: string]: unknown };
        chunk +=
          request.format === 'csv'
            ? csvLine(source.fields.map((field) => record[field]))
            : `${JSON.stringify(record)}\n`;
      }
      if (chunk) await write(chunk);
      const last = rows.at(-1);
      if (!last || rows.length < EXPORT_CHUNK) break;
      cursor = { at: last.__at, id: last.__id };
    }
    if (!gone) res.end();
  } catch (error) {
    http.onError?.(error);
    res.destroy(error instanceof Error ? error : new Error(String(error)));
  }
}

/** The export of `query` scoped as the lists are: a tenant's rows for a token of a tenant, every row for one of none. */
export function logExportRequest(
  query: LogExportQueryDto,
  tenantId: string | undefined,
  equals: readonly { column: string; value: string }[] = [],
): LogExportRequest {
  return {
    format: query.format,
    range: dayRange(query.from, query.to),
    equals: [...(tenantId === undefined ? [] : [{ column: '"tenant_id"', value: tenantId }]), ...equals],
    from: query.from,
    to: query.to,
  };
}
