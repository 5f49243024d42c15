import { ApiRequestError, apiJson } from '../../lib/api';

export type LogKind = 'audit' | 'llm' | 'gateway' | 'access' | 'guardrail';
export type ExportFormat = 'csv' | 'jsonl';

/** A record as a log list returns it (document 3's records; every field a plain JSON value). */
export type LogRecord = Record<string, unknown>;

export interface LogSpec {
  /** `/api/v1/admin/<path>` lists, `/api/v1/admin/<path>/export` exports. */
  path: string;
  /** The list's array member. */
  member: string;
  idField: string;
  timeField: string;
  /** Every field of the record, in the list's order (the CSV header's too). */
  fields: readonly string[];
  /** The columns shown until the user picks others. */
  defaults: readonly string[];
}

export const LOG_KINDS: readonly LogKind[] = ['audit', 'llm', 'gateway', 'access', 'guardrail'];

export const LOGS: Record<LogKind, LogSpec> = {
  audit: {
    path: 'audit-logs',
    member: 'auditLogs',
    idField: 'auditLogId',
    timeField: 'createdAt',
    fields: [
      'auditLogId',
      'resource',
      'action',
      'meta',
      'userId',
      'userEmail',
      'ipAddress',
      'userAgent',
      'createdAt',
      'tenantId',
    ],
    defaults: ['userEmail', 'resource', 'action', 'ipAddress'],
  },
  llm: {
    path: 'llm-logs',
    member: 'llmLogs',
    idField: 'llmLogId',
    timeField: 'timestamp',
    fields: [
      'llmLogId',
      'timestamp',
      'service',
      'operation',
      'durationMs',
      'conversationId',
      'intentType',
      'confidenceScore',
      'toolsUsed',
      'success',
      'agentType',
      'agentLevel',
      'taskComplexity',
      'currentMessage',
      'contextSummary',
      'suggestedApproach',
      'conversationGoal',
      'finalContent',
      'metadata',
      'createdAt',
      'tenantId',
    ],
    defaults: ['service', 'operation', 'durationMs', 'success', 'conversationId'],
  },
  gateway: {
    path: 'llm-gateway-logs',
    member: 'llmGatewayLogs',
    idField: 'llmGatewayLogId',
    timeField: 'createdAt',
    fields: [
      'llmGatewayLogId',
      'createdAt',
      'virtualKeyId',
      'clientSessionId',
      'clientAgentId',
      'apiFlavor',
      'modelName',
      'resolvedModel',
      'provider',
      'deployment',
      'tier',
      'stream',
      'success',
      'httpStatus',
      'errorType',
      'errorCode',
      'usageStatus',
      'latencyMs',
      'inputTokens',
      'outputTokens',
      'totalTokens',
      'cachedTokens',
      'cacheCreationInputTokens',
      'reasoningTokens',
      'costUsd',
      'currency',
      'metadata',
      'tenantId',
    ],
    defaults: ['modelName', 'provider', 'httpStatus', 'latencyMs', 'totalTokens', 'costUsd'],
  },
  access: {
    path: 'access-logs',
    member: 'accessLogs',
    idField: 'accessLogId',
    timeField: 'timestamp',
    fields: [
      'accessLogId',
      'timestamp',
      'service',
      'sourceNamespace',
      'sourceIp',
      'method',
      'host',
      'path',
      'userAgent',
      'statusCode',
      'durationMs',
      'authzResult',
      'authzReason',
      'tenantId',
    ],
    defaults: ['service', 'method', 'path', 'statusCode', 'durationMs', 'authzResult'],
  },
  guardrail: {
    path: 'guardrail-alerts',
    member: 'guardrailAlerts',
    idField: 'guardrailAlertId',
    timeField: 'createdAt',
    fields: [
      'guardrailAlertId',
      'createdAt',
      'service',
      'stage',
      'rule',
      'ruleType',
      'severity',
      'action',
      'matchCount',
      'excerpt',
      'conversationId',
      'messageId',
      'userId',
      'tenantId',
      'caller',
    ],
    defaults: ['rule', 'severity', 'action', 'stage', 'matchCount', 'service'],
  },
};

/**
 * Document 3's date filter (UTC days `YYYY-MM-DD`, `to` inclusive); the guardrail alerts also take a severity
 * and a rule name. The export takes the same filters as the list, so the file holds what the table shows.
 */
export interface LogRange {
  from?: string;
  to?: string;
  severity?: string;
  rule?: string;
}

export const SEVERITIES = ['low', 'medium', 'high'] as const;

/** The list's largest page: the table asks for a page of rows as they come into view. */
export const LOG_PAGE = 100;

export interface LogPage {
  rows: LogRecord[];
  total: number;
}

export const logsKey = (kind: LogKind, range: LogRange) =>
  ['admin', 'logs', kind, range.from ?? '', range.to ?? '', range.severity ?? '', range.rule ?? ''] as const;

const rangeQuery = (range: LogRange, query = new URLSearchParams()) => {
  for (const name of ['from', 'to', 'severity', 'rule'] as const) {
    const value = range[name];
    if (value) query.set(name, value);
  }
  return query;
};

/** Page `page` (1-based) of `kind`'s list in the range. */
export async function listLogPage(
  token: string,
  kind: LogKind,
  range: LogRange,
  page: number,
  signal?: AbortSignal,
): Promise<LogPage> {
  const spec = LOGS[kind];
  const query = rangeQuery(range, new URLSearchParams({ limit: String(LOG_PAGE), page: String(page) }));
  const body = await apiJson<Record<string, unknown> & { total: number }>(
    `/api/v1/admin/${spec.path}?${query}`,
    token,
    {
      signal,
    },
  );
  return { rows: (body[spec.member] as LogRecord[] | undefined) ?? [], total: body.total };
}

const fileNameOf = (disposition: string | null, fallback: string) =>
  /filename="([^"]+)"/.exec(disposition ?? '')?.[1] ?? fallback;

/**
 * The range as a file: the server streams it; the browser keeps the bytes as a Blob (never parsed into rows)
 * and saves it through a download link. Resolves with the file's name.
 */
export async function exportLog(token: string, kind: LogKind, range: LogRange, format: ExportFormat): Promise<string> {
  const spec = LOGS[kind];
  const query = rangeQuery(range, new URLSearchParams({ format }));
  const response = await fetch(`/api/v1/admin/${spec.path}/export?${query}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (!response.ok) {
    const body = (await response.json().catch(() => undefined)) as
      { error?: { code?: string; message?: string } } | undefined;
    throw new ApiRequestError(
      response.status,
      body?.error?.code ?? 'http_error',
      body?.error?.message ?? `${response.status} ${response.statusText}`,
    );
  }
  const name = fileNameOf(response.headers.get('content-disposition'), `${spec.path}.${format}`);
  const url = URL.createObjectURL(await response.blob());
  try {
    const link = document.createElement('a');
    link.href = url;
    link.download = name;
    link.hidden = true;
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    // After the click has handed the file to the browser's download.
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
  return name;
}
