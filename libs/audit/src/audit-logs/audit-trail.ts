import { type AccessTokenPrincipal } from '@fed/auth';
import { clientAddress } from '@fed/server';
import { type IncomingMessage } from 'node:http';
import { timeOrderedUuid } from '@fed/persistence';
import { type AuditLogWriter } from './audit-log-writer';

/** What an admin did: `resource` such as `users/show`, `action` such as `approve`, `meta` its details. */
export interface AuditEntry {
  resource: string;
  action: string;
  meta?: Record<string, unknown> | null;
}

export interface AuditActor {
  userId: string;
  userEmail: string | null;
  ipAddress: string | null;
  userAgent: string | null;
  /** The actor's tenant (`tenant.id` of the token): whose admins see the row; null, the operator only. */
  tenantId: string | null;
}

const MAX_TEXT = 1000;
const MAX_DEPTH = 4;

/** The client address as the host computes it (`trustProxyHops`). */
export function auditActorOf(
  principal: Pick<AccessTokenPrincipal, 'subject' | 'claims' | 'tenant'>,
  request: IncomingMessage,
  trustProxyHops: number,
): AuditActor {
  const email = principal.claims.email;
  const userAgent = request.headers['user-agent'];
  return {
    userId: principal.subject,
    userEmail: typeof email === 'string' ? email : null,
    ipAddress: clientAddress(request, trustProxyHops),
    userAgent: typeof userAgent === 'string' && userAgent !== '' ? userAgent : null,
    tenantId: principal.tenant?.id ?? null,
  };
}

/** Never throws and never waits for the database: rows go out in the next batch (see AuditLogWriter). */
export class AuditTrail {
  constructor(private readonly writer: AuditLogWriter) {}

  record(entry: AuditEntry, actor: AuditActor, now = Date.now()): void {
    this.writer.append({
      id: timeOrderedUuid(now),
      resource: cleanText(entry.resource),
      action: cleanText(entry.action),
      meta: entry.meta ? (cleanValue(entry.meta, 0) as Record<string, unknown>) : null,
      user_id: cleanText(actor.userId),
      user_email: actor.userEmail === null ? null : cleanText(actor.userEmail),
      ip_address: actor.ipAddress === null ? null : cleanText(actor.ipAddress),
      user_agent: actor.userAgent === null ? null : cleanText(actor.userAgent),
      created_at: new Date(now).toISOString(),
      tenant_id: actor.tenantId === null ? null : cleanText(actor.tenantId),
    });
  }

  /** Writes the buffered rows now (tests, shutdown). */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  close(): Promise<void> {
    return this.writer.close();
  }
}

// PostgreSQL refuses NUL in text and jsonb, and lone surrogates in jsonb (a path parameter may carry %00).
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function cleanText(value: string): string {
  const text = value.length > MAX_TEXT ? value.slice(0, MAX_TEXT) : value;
  return text.replace(UNSTORABLE, '\uFFFD');
}

function cleanValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return cleanText(value);
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'boolean' || value === null) return value;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (typeof value !== 'object' || depth >= MAX_DEPTH) return value === undefined ? undefined : null;
  if (Array.isArray(value)) return value.slice(0, 100).map((item) => cleanValue(item, depth + 1) ?? null);
  const cleaned: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value).slice(0, 100)) {
    const item = cleanValue(member, depth + 1);
    if (item !== undefined) cleaned[cleanText(key)] = item;
  }
  return cleaned;
}
