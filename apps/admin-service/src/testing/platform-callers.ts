import { PLATFORM_SCOPE, managementScopes } from '@fed/contracts';
import { ClientsService } from '@fed/identity';
import { type AdminStack, type AdminCall, call } from './boot-admin-stack';
import { operatorToken } from './operator-token';

/** Who calls a platform operator's route (`platform:manage`): the operator, and those it must refuse. */
export interface PlatformCallers {
  /** A client of no tenant holding `platform:manage`. */
  operator: string;
  /** A tenant's admin, signed in with every scope a tenant admin's console asks (ADMIN_SCOPES). */
  tenantAdmin: string;
  /** A user who is not an admin. */
  plainUser: string;
  /** A tenant's client_credentials client holding every other management scope. */
  tenantClient: string;
}

let tenantClients = 0;

/** Signs each caller in; `login` prefixes the users made for it (each spec its own). */
export async function platformCallers(stack: AdminStack, login: string): Promise<PlatformCallers> {
  await stack.createUser(`${login}-admin`, { role: 'admin' });
  await stack.createUser(`${login}-user`);
  const clientId = `${login}-tenant-etl-${++tenantClients}`;
  const { clientSecret } = await stack.auth.nest.get(ClientsService).create({
    clientId,
    name: 'A tenant integration',
    grantTypes: ['client_credentials'],
    scopes: managementScopes.filter((scope) => scope !== PLATFORM_SCOPE),
  });
  const res = await fetch(`${stack.auth.url}/federation/auth/v1/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  });
  if (res.status !== 200) throw new Error(`tenant client token: ${res.status} ${await res.text()}`);
  return {
    operator: await operatorToken(stack.auth, [PLATFORM_SCOPE]),
    tenantAdmin: (await stack.signIn(`${login}-admin`)).accessToken,
    plainUser: (await stack.signIn(`${login}-user`, 'openid')).accessToken,
    tenantClient: ((await res.json()) as { access_token: string }).access_token,
  };
}

/** `[caller, status, error.code]` of each refused caller; the operator's own call is the route's test. */
export async function refusalsOf(
  stack: AdminStack,
  callers: PlatformCallers,
  method: string,
  path: string,
  body?: unknown,
): Promise<[string, number, string | undefined][]> {
  const asCaller = async (who: string, token: string | undefined): Promise<[string, number, string | undefined]> => {
    const answer: AdminCall = await call(stack.admin, method, path, token, body);
    return [who, answer.status, answer.body.error?.code];
  };
  return [
    await asCaller('no token', undefined),
    await asCaller('a tenant admin', callers.tenantAdmin),
    await asCaller('a plain user', callers.plainUser),
    await asCaller("a tenant's client with every other management scope", callers.tenantClient),
  ];
}

/** What `refusalsOf` answers for a route only the platform operator may call. */
export const REFUSED_TO_ALL_BUT_THE_OPERATOR: [string, number, string][] = [
  ['no token', 401, 'invalid_token'],
  ['a tenant admin', 403, 'insufficient_scope'],
  ['a plain user', 403, 'insufficient_scope'],
  ["a tenant's client with every other management scope", 403, 'insufficient_scope'],
];

export interface AuditRow {
  resource: string;
  action: string;
  tenantId: string | null;
  meta: unknown;
}

/**
 * The audit rows since `since` whose resource starts with `prefix`, oldest first, once `count` of them are written
 * (they are written in batches).
 */
export async function auditRows(stack: AdminStack, prefix: string, since: Date, count: number): Promise<AuditRow[]> {
  const until = Date.now() + 10_000;
  for (;;) {
    const rows = (await stack.dataSource.query(
      `SELECT "resource", "action", "tenant_id" AS "tenantId", "meta" FROM "audit"."audit_logs"
       WHERE "resource" LIKE $1 AND "created_at" >= $2 ORDER BY "created_at"`,
      [`${prefix}%`, since],
    )) as AuditRow[];
    if (rows.length >= count || Date.now() > until) return rows;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
