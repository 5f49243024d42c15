import { type Command } from 'commander';
import {
  AccessLogsRepository,
  AuditLogsRepository,
  GatewayLogsRepository,
  GuardrailAlertsQuery,
  GuardrailAlertsRepository,
  LlmLogsRepository,
  toAccessLogResponse,
  toAuditLogResponse,
  toGatewayLogResponse,
  toGuardrailAlertResponse,
  toLlmLogResponse,
} from '@fed/audit';
import {
  type DayRange,
  type NumberedPageParams,
  dayRange,
  numberedPageEnvelope,
  toNumberedPageParams,
} from '@fed/contracts';
import { LogPageQueryDto, RequestValidationPipe } from '@fed/server';
import { type DataSource } from 'typeorm';
import { withEntities } from './database';

/** One log the admin API lists, read here by the same repository and shown in the same record shape. */
interface LogKind {
  description: string;
  /** The admin API's query class of this log (its filters, if any, beside the page and the days). */
  query?: typeof LogPageQueryDto;
  read(
    dataSource: DataSource,
    range: DayRange,
    page: NumberedPageParams,
    query: LogPageQueryDto,
  ): Promise<{ records: object[]; total: number }>;
}

const LOGS: Record<string, LogKind> = {
  audit: {
    description: 'admin actions (GET /v1/admin/audit-logs)',
    read: async (dataSource, range, page) => {
      const { rows, total } = await new AuditLogsRepository(dataSource).list({}, range, page);
      return { records: rows.map(toAuditLogResponse), total };
    },
  },
  llm: {
    description: "the agent runtime's model calls (GET /v1/admin/llm-logs)",
    read: async (dataSource, range, page) => {
      const { rows, total } = await new LlmLogsRepository(dataSource).list({}, range, page);
      return { records: rows.map(toLlmLogResponse), total };
    },
  },
  gateway: {
    description: 'model gateway requests (GET /v1/admin/llm-gateway-logs)',
    read: async (dataSource, range, page) => {
      const { rows, total } = await new GatewayLogsRepository(dataSource).list({}, range, page);
      return { records: rows.map(toGatewayLogResponse), total };
    },
  },
  access: {
    description: 'HTTP requests of every service (GET /v1/admin/access-logs)',
    read: async (dataSource, range, page) => {
      const { rows, total } = await new AccessLogsRepository(dataSource).list({}, range, page);
      return { records: rows.map(toAccessLogResponse), total };
    },
  },
  guardrail: {
    description: "content-filter alerts, every tenant's (GET /v1/admin/guardrail-alerts)",
    query: GuardrailAlertsQuery,
    read: async (dataSource, range, page, query) => {
      const { severity, rule, conversationId } = query as GuardrailAlertsQuery;
      const filter = { severity, rule, conversationId: conversationId?.toLowerCase() };
      const { rows, total } = await new GuardrailAlertsRepository(dataSource).list(filter, range, page);
      return { records: rows.map(toGuardrailAlertResponse), total };
    },
  },
};

interface LogsOptions {
  from?: string;
  to?: string;
  limit?: string;
  page?: string;
  severity?: string;
  rule?: string;
  conversationId?: string;
}

/** `platformctl logs <kind>`: one page newest first, a JSON record per line on stdout, the envelope on stderr. */
export function registerLogs(program: Command): void {
  const kinds = Object.keys(LOGS);
  program
    .command('logs <kind>')
    .description(
      `one page of a log, newest first, as JSON lines: ${kinds.map((kind) => `${kind} (${LOGS[kind].description})`).join(', ')}`,
    )
    .option('--from <day>', 'first UTC day, YYYY-MM-DD')
    .option('--to <day>', 'last UTC day (included), YYYY-MM-DD')
    .option('--limit <n>', 'records per page, 1-100', '25')
    .option('--page <n>', 'page number, from 1', '1')
    .option('--severity <level>', 'guardrail: low, medium or high')
    .option('--rule <name>', "guardrail: one rule's alerts")
    .option('--conversation-id <id>', "guardrail: one conversation's alerts")
    .action(async (kind: string, options: LogsOptions) => {
      const log = Object.hasOwn(LOGS, kind) ? LOGS[kind] : undefined;
      if (!log) throw new Error(`unknown log ${JSON.stringify(kind)}: one of ${kinds.join(', ')}`);
      const query = (await new RequestValidationPipe().transform(
        { ...options },
        { type: 'query', metatype: log.query ?? LogPageQueryDto },
      )) as LogPageQueryDto;
      const page = toNumberedPageParams(query);
      const { records, total } = await withEntities([], (dataSource) =>
        log.read(dataSource, dayRange(query.from, query.to), page, query),
      );
      for (const record of records) process.stdout.write(`${JSON.stringify(record)}\n`);
      const envelope = numberedPageEnvelope(page, total);
      process.stderr.write(
        `page ${envelope.page} (${records.length} of ${envelope.total})${envelope.hasMore ? `, next: --page ${envelope.page + 1}` : ''}\n`,
      );
    });
}
