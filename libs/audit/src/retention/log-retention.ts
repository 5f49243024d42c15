import { type DataSource } from 'typeorm';

/** The log tables that retention trims, each keyed by its (created_at, id) index. */
export const RETAINED_LOGS = {
  audit: '"audit"."audit_logs"',
  gateway: '"audit"."llm_gateway_logs"',
  llm: '"audit"."llm_logs"',
  access: '"audit"."access_logs"',
  guardrail: '"audit"."guardrail_alerts"',
} as const;

export type RetainedLog = keyof typeof RETAINED_LOGS;

const BATCH_ROWS = 5000;
const DAY_MS = 86_400_000;

/**
 * Oldest first, one batch per statement so transactions stay short while writers insert; concurrent instances
 * take different rows (SKIP LOCKED).
 */
export async function deleteExpiredLogRows(
  dataSource: Pick<DataSource, 'query'>,
  log: RetainedLog,
  days: number,
  options: { now?: number; batchRows?: number; stopped?: () => boolean } = {},
): Promise<number> {
  const table = RETAINED_LOGS[log];
  const cutoff = new Date((options.now ?? Date.now()) - days * DAY_MS);
  const batchRows = options.batchRows ?? BATCH_ROWS;
  let deleted = 0;
  for (;;) {
    const result = (await dataSource.query(
      `DELETE FROM ${table} WHERE "id" IN (
         SELECT "id" FROM ${table} WHERE "created_at" < $1 ORDER BY "created_at", "id" LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [cutoff, batchRows],
    )) as [unknown[], number];
    const count = result[1];
    deleted += count;
    if (count < batchRows || options.stopped?.()) return deleted;
  }
}
