import 'reflect-metadata';
import { AuditTrail } from '@fed/audit';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { PLATFORM_SCOPE, managementScopes } from '@fed/contracts';
import { ClientsService } from '@fed/identity';
import { buildDist, cleanEnv, freePort, startProcess } from '@fed/testing';
import { decodeJwt, exportJWK, generateKeyPair } from 'jose';
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { type AdminCall, type AdminStack, bootAdminStack, call } from './testing/boot-admin-stack';

const TENANTS = '/api/v1/admin/tenants';
const SECRET = 'upstream-client-secret-never-shown';

interface Tenant {
  tenantId: string;
  name: string;
  type: string;
  endpoint: string;
  enabled: boolean;
  createdAt: string;
  userCount: number;
  clientCount: number;
  hasIdentityProvider: boolean;
}

interface Problem {
  code: string;
  message: string;
}

/** An OpenID provider's discovery document and JWKS on loopback, answering what each test scripts. */
interface ScriptedProvider {
  /** `http://127.0.0.1:<port>/<name>`: one issuer per script. */
  issuer(name: string): string;
  script(name: string, answers: Record<string, (res: ServerResponse) => void>): void;
  close(): Promise<void>;
}

const json =
  (body: unknown, status = 200) =>
  (res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

async function startScriptedProvider(): Promise<ScriptedProvider> {
  const scripts = new Map<string, (res: ServerResponse) => void>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const answer = scripts.get(req.url ?? '');
    if (answer) answer(res);
    else json({ error: 'not found' }, 404)(res);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${port}`;
  return {
    issuer: (name) => `${base}/${name}`,
    script(name, answers) {
      for (const [suffix, answer] of Object.entries(answers)) scripts.set(`/${name}${suffix}`, answer);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function clientCredentials(stack: AdminStack, clientId: string, secret: string): Promise<Response> {
  return fetch(`${stack.auth.url}/federation/auth/v1/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  });
}

/**
 * Tenants and their identity providers over HTTP (`platform:manage`), as `platformctl tenants` manages them: auth-,
 * admin- and chat-service apart on the real PostgreSQL and Redis. A change's effect is watched where it matters
 * (the token endpoint, the sealed secret in the database), and the "test sign-in" talks to a scripted provider on
 * loopback under brokering's outbound rules.
 */
describe('the tenants API (/api/v1/admin/tenants, platform:manage)', () => {
  let stack: AdminStack;
  let provider: ScriptedProvider;
  let operator: string;
  const refused: Record<'tenantAdmin' | 'plainUser' | 'tenantClient', string> = {
    tenantAdmin: '',
    plainUser: '',
    tenantClient: '',
  };

  beforeAll(async () => {
    stack = await bootAdminStack();
    provider = await startScriptedProvider();
    await stack.createUser('tess', { role: 'admin' });
    await stack.createUser('uma');
    refused.tenantAdmin = (await stack.signIn('tess')).accessToken;
    refused.plainUser = (await stack.signIn('uma', 'openid')).accessToken;
    const clients = stack.auth.nest.get(ClientsService);
    const { clientSecret } = await clients.create({
      clientId: 'tenant-etl',
      name: 'A tenant integration',
      grantTypes: ['client_credentials'],
      scopes: managementScopes.filter((scope) => scope !== PLATFORM_SCOPE),
    });
    refused.tenantClient = (
      (await (await clientCredentials(stack, 'tenant-etl', clientSecret)).json()) as { access_token: string }
    ).access_token;
    const operatorClient = await clients.create({
      clientId: 'tenants-operator',
      name: 'Platform operator',
      grantTypes: ['client_credentials'],
      scopes: [PLATFORM_SCOPE],
      operator: true,
    });
    operator = (
      (await (await clientCredentials(stack, 'tenants-operator', operatorClient.clientSecret)).json()) as {
        access_token: string;
      }
    ).access_token;
  }, 120_000);

  afterAll(async () => {
    await provider?.close();
    await stack?.close();
  });

  const asOperator = (method: string, suffix = '', body?: unknown): Promise<AdminCall> =>
    call(stack.admin, method, `${TENANTS}${suffix}`, operator, body);
  const created = async (body: Record<string, unknown>): Promise<Tenant> => {
    const answer = await asOperator('POST', '', body);
    expect([answer.status, answer.body.error]).toEqual([201, undefined]);
    return answer.body as unknown as Tenant;
  };
  const enterprise = (name: string) => created({ name, type: 'enterprise', endpoint: `https://${name}.example` });
  const codeOf = (answer: AdminCall) => [answer.status, answer.body.error?.code];

  async function within(withinMs: number, check: () => Promise<boolean>): Promise<void> {
    const since = Date.now();
    while (!(await check())) {
      if (Date.now() - since > withinMs) throw new Error(`not within ${withinMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  type AuditRow = { action: string; meta: Record<string, unknown>; tenantId: string | null };
  /** The audit rows of `resource` (of one tenant when given), once `count` of them are written (in batches). */
  async function auditRows(resource: string, count: number, tenantId?: string): Promise<AuditRow[]> {
    let rows: AuditRow[] = [];
    await within(10_000, async () => {
      await stack.admin.nest.get(AuditTrail).flush();
      rows = (
        (await stack.dataSource.query(
          `SELECT "action", "meta", "tenant_id" AS "tenantId" FROM "audit"."audit_logs" WHERE "resource" = $1 ORDER BY "created_at"`,
          [resource],
        )) as AuditRow[]
      ).filter((row) => tenantId === undefined || row.meta.tenantId === tenantId);
      return rows.length >= count;
    });
    return rows;
  }

  describe('who may call', () => {
    it('refuses every caller but the platform operator on every route (401 without a token, 403 otherwise)', async () => {
      const tenant = await enterprise('refusals');
      const idp = `/${tenant.tenantId}/identity-provider`;
      const routes: [string, string, unknown?][] = [
        ['GET', ''],
        ['POST', '', { name: 'intruder', type: 'saas', endpoint: 'https://x.example' }],
        ['GET', `/${tenant.tenantId}`],
        ['PATCH', `/${tenant.tenantId}`, { enabled: false }],
        ['DELETE', `/${tenant.tenantId}`],
        ['GET', idp],
        ['PUT', idp, { issuer: 'https://id.example', clientId: 'c', clientSecret: 's' }],
        ['DELETE', idp],
        ['POST', `${idp}/test`],
      ];
      for (const [method, suffix, body] of routes) {
        const answers = [];
        for (const [who, token] of [
          ['no token', undefined],
          ['a tenant admin', refused.tenantAdmin],
          ['a plain user', refused.plainUser],
          ["a tenant's client with every other management scope", refused.tenantClient],
        ] as const) {
          const answer = await call(stack.admin, method, `${TENANTS}${suffix}`, token, body);
          answers.push([`${method} ${suffix} by ${who}`, ...codeOf(answer)]);
        }
        expect(answers).toEqual([
          [`${method} ${suffix} by no token`, 401, 'invalid_token'],
          [`${method} ${suffix} by a tenant admin`, 403, 'insufficient_scope'],
          [`${method} ${suffix} by a plain user`, 403, 'insufficient_scope'],
          [`${method} ${suffix} by a tenant's client with every other management scope`, 403, 'insufficient_scope'],
        ]);
      }
      // Nothing changed.
      expect((await asOperator('GET', `/${tenant.tenantId}`)).body).toEqual(tenant);
      expect((await asOperator('GET', '?search=intruder')).body.total).toBe(0);
    });
  });

  describe('tenants', () => {
    it('creates a tenant (201), enabled unless told, with no users, clients or provider yet; audited', async () => {
      const since = new Date();
      const tenant = await created({ name: 'Acme Corp', type: 'enterprise', endpoint: 'https://acme.example/app' });
      expect(tenant).toEqual({
        tenantId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'Acme Corp',
        type: 'enterprise',
        endpoint: 'https://acme.example/app',
        enabled: true,
        createdAt: expect.any(String),
        userCount: 0,
        clientCount: 0,
        hasIdentityProvider: false,
      });
      expect(Date.parse(tenant.createdAt)).toBeGreaterThanOrEqual(since.getTime() - 1000);
      const shop = await created({ name: 'shop', type: 'saas', endpoint: 'http://shop.example', enabled: false });
      expect(shop).toMatchObject({ type: 'saas', enabled: false });
      const [row] = await auditRows('tenants/create', 1, tenant.tenantId);
      expect(row).toEqual({
        action: 'create',
        meta: { tenantId: tenant.tenantId, name: 'Acme Corp', type: 'enterprise', enabled: true },
        tenantId: null,
      });
    });

    it('answers 409 conflict to a name that is taken, and to the default tenant of users without one', async () => {
      await enterprise('taken');
      const again = await asOperator('POST', '', { name: 'taken', type: 'saas', endpoint: 'https://other.example' });
      expect(codeOf(again)).toEqual([409, 'conflict']);
      expect(again.body.error?.message).toContain('a tenant named "taken" exists');
      const reserved = await asOperator('POST', '', {
        name: 'default',
        type: 'enterprise',
        endpoint: 'https://x.example',
      });
      expect(codeOf(reserved)).toEqual([409, 'conflict']);
    });

    it.each([
      ['no name', { type: 'saas', endpoint: 'https://x.example' }],
      ['an empty name', { name: '', type: 'saas', endpoint: 'https://x.example' }],
      ['a name over 100 characters', { name: 'n'.repeat(101), type: 'saas', endpoint: 'https://x.example' }],
      ['a name with a control character', { name: 'evil\u0007corp', type: 'saas', endpoint: 'https://x.example' }],
      ['a name with a newline', { name: 'evil\ncorp', type: 'saas', endpoint: 'https://x.example' }],
      ['a name with a leading space', { name: ' padded', type: 'saas', endpoint: 'https://x.example' }],
      ['a name that is not a string', { name: 42, type: 'saas', endpoint: 'https://x.example' }],
      ['no type', { name: 'typeless', endpoint: 'https://x.example' }],
      ['an unknown type', { name: 'typeless', type: 'premium', endpoint: 'https://x.example' }],
      ['no endpoint', { name: 'nowhere', type: 'saas' }],
      ['an endpoint that is not a URL', { name: 'nowhere', type: 'saas', endpoint: 'acme.example' }],
      ['a javascript: endpoint', { name: 'nowhere', type: 'saas', endpoint: 'javascript:alert(1)' }],
      ['an ftp endpoint', { name: 'nowhere', type: 'saas', endpoint: 'ftp://acme.example' }],
      ['an endpoint with credentials', { name: 'nowhere', type: 'saas', endpoint: 'https://u:p@acme.example' }],
      ['an endpoint with a fragment', { name: 'nowhere', type: 'saas', endpoint: 'https://acme.example/#x' }],
      ['an endpoint with a tab', { name: 'nowhere', type: 'saas', endpoint: 'https://acme.\texample' }],
      [
        'an endpoint over 2000 characters',
        { name: 'nowhere', type: 'saas', endpoint: `https://a.example/${'p'.repeat(2000)}` },
      ],
      [
        'enabled that is not a boolean',
        { name: 'nowhere', type: 'saas', endpoint: 'https://x.example', enabled: 'yes' },
      ],
      ['an unknown field', { name: 'nowhere', type: 'saas', endpoint: 'https://x.example', id: randomUUID() }],
    ])('refuses to create a tenant with %s: 400 invalid_parameter', async (_rule, body) => {
      const answer = await asOperator('POST', '', body);
      expect(codeOf(answer)).toEqual([400, 'invalid_parameter']);
    });

    it('refuses a body that is not a JSON object, or is not JSON, with 400', async () => {
      expect(codeOf(await asOperator('POST', '', '["acme"]'))).toEqual([400, 'invalid_request']);
      expect(codeOf(await asOperator('POST', '', '{"name": '))).toEqual([400, 'invalid_json']);
    });

    it('lists tenants by name in numbered pages, with a search of the name or endpoint in any letter case', async () => {
      for (const name of ['page-a', 'page-b', 'page-c']) await enterprise(name);
      const first = await asOperator('GET', '?search=PAGE-&limit=2');
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ total: 3, limit: 2, page: 1, hasMore: true });
      expect((first.body.tenants as Tenant[]).map((tenant) => tenant.name)).toEqual(['page-a', 'page-b']);
      const second = await asOperator('GET', '?search=page-&limit=2&page=2');
      expect(second.body).toMatchObject({ total: 3, limit: 2, page: 2, hasMore: false });
      expect((second.body.tenants as Tenant[]).map((tenant) => tenant.name)).toEqual(['page-c']);
      // By the endpoint, too; LIKE's wildcards match only themselves.
      expect(((await asOperator('GET', '?search=page-b.example')).body.tenants as Tenant[]).map((t) => t.name)).toEqual(
        ['page-b'],
      );
      expect((await asOperator('GET', `?search=${encodeURIComponent('page_%')}`)).body.total).toBe(0);
      // Without a search: every tenant, the default page size 25.
      const all = await asOperator('GET');
      expect(all.body).toMatchObject({ limit: 25, page: 1 });
      expect(all.body.total).toBeGreaterThanOrEqual(7);
      const names = (all.body.tenants as Tenant[]).map((tenant) => tenant.name);
      expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    });

    it.each([
      ['limit 0', '?limit=0'],
      ['limit 101', '?limit=101'],
      ['a limit that is not a number', '?limit=ten'],
      ['page 0', '?page=0'],
      ['a negative page', '?page=-1'],
      ['an empty search', '?search='],
      ['a search over 100 characters', `?search=${'s'.repeat(101)}`],
      ['a search with NUL', '?search=%00'],
      ['a repeated search', '?search=a&search=b'],
    ])('refuses a list with %s: 400 invalid_parameter', async (_rule, query) => {
      expect(codeOf(await asOperator('GET', query))).toEqual([400, 'invalid_parameter']);
    });

    it('reads one tenant with its user and client counts; an unknown or malformed id is 404', async () => {
      const tenant = await enterprise('counted');
      await stack.createUser('counted-1', { tenantName: 'counted' });
      await stack.createUser('counted-2', { tenantName: 'counted' });
      await stack.auth.nest.get(ClientsService).create({
        clientId: 'counted-etl',
        name: 'counted etl',
        grantTypes: ['client_credentials'],
        scopes: ['logs:read'],
        tenantName: 'counted',
      });
      const answer = await asOperator('GET', `/${tenant.tenantId.toUpperCase()}`);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ tenantId: tenant.tenantId, userCount: 2, clientCount: 1 });
      for (const id of [randomUUID(), 'not-a-uuid', `${tenant.tenantId}x`, "1' OR '1'='1"]) {
        const missing = await asOperator('GET', `/${encodeURIComponent(id)}`);
        expect([id, ...codeOf(missing)]).toEqual([id, 404, 'not_found']);
      }
    });

    it("changes the endpoint, which the tenant's next tokens carry", async () => {
      const tenant = await enterprise('moving');
      const { clientSecret } = await stack.auth.nest.get(ClientsService).create({
        clientId: 'moving-etl',
        name: 'moving etl',
        grantTypes: ['client_credentials'],
        scopes: ['logs:read'],
        tenantName: 'moving',
      });
      const answer = await asOperator('PATCH', `/${tenant.tenantId}`, { endpoint: 'https://new.moving.example' });
      expect([answer.status, answer.body.endpoint, answer.body.name]).toEqual([
        200,
        'https://new.moving.example',
        'moving',
      ]);
      // The token endpoint reads clients through a one-second cache.
      await within(3000, async () => {
        const res = await clientCredentials(stack, 'moving-etl', clientSecret);
        const token = ((await res.json()) as { access_token: string }).access_token;
        return (decodeJwt(token).tenant as { endpoint?: string }).endpoint === 'https://new.moving.example';
      });
      const [row] = await auditRows('tenants/update', 1, tenant.tenantId);
      expect(row).toMatchObject({ action: 'update', meta: { name: 'moving', endpoint: 'https://new.moving.example' } });
    });

    it('disables a tenant: its users and clients get no tokens until it is enabled again (audited as disable, enable)', async () => {
      const tenant = await enterprise('closing');
      await stack.createUser('closing-user', { tenantName: 'closing' });
      const { refreshToken } = await stack.signIn('closing-user', 'openid');
      const { clientSecret } = await stack.auth.nest.get(ClientsService).create({
        clientId: 'closing-etl',
        name: 'closing etl',
        grantTypes: ['client_credentials'],
        scopes: ['logs:read'],
        tenantName: 'closing',
      });
      expect((await clientCredentials(stack, 'closing-etl', clientSecret)).status).toBe(200);

      const disabled = await asOperator('PATCH', `/${tenant.tenantId}`, { enabled: false });
      expect([disabled.status, disabled.body.enabled]).toEqual([200, false]);
      await within(3000, async () => (await clientCredentials(stack, 'closing-etl', clientSecret)).status === 400);
      const refused = await clientCredentials(stack, 'closing-etl', clientSecret);
      expect(((await refused.json()) as { error: string }).error).toBe('unauthorized_client');
      expect(await stack.refresh(refreshToken)).toBe(400);

      const enabled = await asOperator('PATCH', `/${tenant.tenantId}`, { enabled: true });
      expect([enabled.status, enabled.body.enabled]).toEqual([200, true]);
      await within(3000, async () => (await clientCredentials(stack, 'closing-etl', clientSecret)).status === 200);
      const rows = await auditRows('tenants/update', 2, tenant.tenantId);
      expect(rows.map((row) => [row.action, row.meta.enabled])).toEqual([
        ['disable', false],
        ['enable', true],
      ]);
    });

    it.each([
      ['a new name (a tenant is never renamed)', { name: 'renamed' }, 400, 'invalid_parameter'],
      ['a new type', { type: 'saas' }, 400, 'invalid_parameter'],
      ['nothing to change', {}, 400, 'invalid_request'],
      ['a bad endpoint', { endpoint: 'file:///etc/passwd' }, 400, 'invalid_parameter'],
      ['enabled that is not a boolean', { enabled: 'false' }, 400, 'invalid_parameter'],
    ])('refuses a change with %s', async (_rule, body, status, code) => {
      const tenant = (await asOperator('GET', '?search=Acme Corp')).body.tenants as Tenant[];
      const answer = await asOperator('PATCH', `/${tenant[0]?.tenantId}`, body);
      expect(codeOf(answer)).toEqual([status, code]);
      expect((await asOperator('GET', `/${tenant[0]?.tenantId}`)).body).toMatchObject({
        name: 'Acme Corp',
        type: 'enterprise',
        endpoint: 'https://acme.example/app',
      });
    });

    it('answers 404 to a change or delete of an unknown tenant', async () => {
      expect(codeOf(await asOperator('PATCH', `/${randomUUID()}`, { enabled: false }))).toEqual([404, 'not_found']);
      expect(codeOf(await asOperator('DELETE', `/${randomUUID()}`))).toEqual([404, 'not_found']);
    });

    it('refuses to delete a tenant while users or clients belong to it (409), or the default tenant', async () => {
      const withUser = await enterprise('with-user');
      await stack.createUser('with-user-1', { tenantName: 'with-user' });
      const answer = await asOperator('DELETE', `/${withUser.tenantId}`);
      expect(codeOf(answer)).toEqual([409, 'conflict']);
      expect(answer.body.error?.message).toContain('has 1 user(s) and 0 client(s)');
      const withClient = await enterprise('with-client');
      await stack.auth.nest.get(ClientsService).create({
        clientId: 'with-client-etl',
        name: 'etl',
        grantTypes: ['client_credentials'],
        scopes: ['logs:read'],
        tenantName: 'with-client',
      });
      expect(codeOf(await asOperator('DELETE', `/${withClient.tenantId}`))).toEqual([409, 'conflict']);
      const fallback = ((await asOperator('GET', '?search=default')).body.tenants as Tenant[]).find(
        (tenant) => tenant.name === 'default',
      ) as Tenant;
      expect(codeOf(await asOperator('DELETE', `/${fallback.tenantId}`))).toEqual([409, 'conflict']);
      for (const tenant of [withUser, withClient, fallback]) {
        expect((await asOperator('GET', `/${tenant.tenantId}`)).status).toBe(200);
      }
    });

    it('deletes a tenant without users or clients, with its provider and master data; audited', async () => {
      const tenant = await enterprise('leaving');
      await stack.dataSource.query(
        `INSERT INTO "identity"."organizations" ("code", "label", "tenant_id", "created_at", "updated_at") VALUES ('hq', 'HQ', $1, now(), now())`,
        [tenant.tenantId],
      );
      expect(
        (
          await asOperator('PUT', `/${tenant.tenantId}/identity-provider`, {
            issuer: 'https://login.leaving.example',
            clientId: 'broker',
            clientSecret: SECRET,
            domains: ['leaving.example'],
          })
        ).status,
      ).toBe(200);
      const answer = await asOperator('DELETE', `/${tenant.tenantId}`);
      expect([answer.status, answer.body]).toEqual([200, { tenantId: tenant.tenantId, deleted: true }]);
      expect(codeOf(await asOperator('GET', `/${tenant.tenantId}`))).toEqual([404, 'not_found']);
      const [left] = await stack.dataSource.query(
        `SELECT (SELECT count(*)::int FROM "identity"."organizations" WHERE "tenant_id" = $1) AS "organizations",
                (SELECT count(*)::int FROM "identity"."tenant_identity_providers" WHERE "tenant_id" = $1) AS "providers",
                (SELECT count(*)::int FROM "identity"."tenant_idp_domains" WHERE "tenant_id" = $1) AS "domains"`,
        [tenant.tenantId],
      );
      expect(left).toEqual({ organizations: 0, providers: 0, domains: 0 });
      const [row] = await auditRows('tenants/delete', 1, tenant.tenantId);
      expect(row).toEqual({ action: 'delete', meta: { tenantId: tenant.tenantId, name: 'leaving' }, tenantId: null });
    });
  });

  describe("a tenant's identity provider", () => {
    let acme: Tenant;
    const idpOf = (tenant: Tenant) => `/${tenant.tenantId}/identity-provider`;
    const storedSecret = async (tenantId: string) =>
      (
        (await stack.dataSource.query(
          `SELECT "client_secret_ciphertext" AS "sealed" FROM "identity"."tenant_identity_providers" WHERE "tenant_id" = $1`,
          [tenantId],
        )) as { sealed: Buffer }[]
      )[0]?.sealed;

    beforeAll(async () => {
      acme = await enterprise('idp-acme');
    });

    it('answers 404 before a provider is set, and to an unknown tenant', async () => {
      expect(codeOf(await asOperator('GET', idpOf(acme)))).toEqual([404, 'not_found']);
      expect(codeOf(await asOperator('POST', `${idpOf(acme)}/test`))).toEqual([404, 'not_found']);
      expect(codeOf(await asOperator('DELETE', idpOf(acme)))).toEqual([404, 'not_found']);
      const unknown = `/${randomUUID()}/identity-provider`;
      for (const [method, suffix, body] of [
        ['GET', '', undefined],
        ['PUT', '', { issuer: 'https://id.example', clientId: 'c', clientSecret: 's' }],
        ['DELETE', '', undefined],
        ['POST', '/test', undefined],
      ] as const) {
        expect([method, ...codeOf(await asOperator(method, `${unknown}${suffix}`, body))]).toEqual([
          method,
          404,
          'not_found',
        ]);
      }
    });

    it('refuses a first provider without a secret (400), and a saas tenant (400 invalid_request)', async () => {
      const noSecret = await asOperator('PUT', idpOf(acme), { issuer: 'https://id.acme.example', clientId: 'broker' });
      expect(codeOf(noSecret)).toEqual([400, 'invalid_parameter']);
      expect(noSecret.body.error?.message).toContain('a client secret is required');
      const shop = await created({ name: 'idp-shop', type: 'saas', endpoint: 'https://shop.example' });
      const saas = await asOperator('PUT', idpOf(shop), {
        issuer: 'https://id.shop.example',
        clientId: 'broker',
        clientSecret: SECRET,
      });
      expect(codeOf(saas)).toEqual([400, 'invalid_request']);
    });

    it('stores the provider with its secret sealed, and never returns the secret; audited without it', async () => {
      const answer = await asOperator('PUT', idpOf(acme), {
        issuer: 'https://login.acme.example/v2.0',
        clientId: 'broker',
        clientSecret: SECRET,
        scopes: ['openid', 'email'],
        domains: ['Acme.example', 'acme.example'],
        claims: { organization: 'department', job: 'jobTitle' },
      });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        tenantId: acme.tenantId,
        tenant: 'idp-acme',
        issuer: 'https://login.acme.example/v2.0',
        clientId: 'broker',
        scopes: ['openid', 'email'],
        domains: ['acme.example'],
        claims: {
          name: 'name',
          preferred_username: 'preferred_username',
          email: 'email',
          email_verified: 'email_verified',
          organization: 'department',
          job: 'jobTitle',
          bio: 'bio',
        },
        redirectUri: `${stack.auth.config.auth.authUrl}/federation/auth/v1/idp/callback`,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(JSON.stringify(answer.body)).not.toContain(SECRET);
      const read = await asOperator('GET', idpOf(acme));
      expect([read.status, read.body]).toEqual([200, answer.body]);
      expect(JSON.stringify(read.body)).not.toContain(SECRET);
      expect((await storedSecret(acme.tenantId))?.includes(Buffer.from(SECRET))).toBe(false);
      expect((await asOperator('GET', `/${acme.tenantId}`)).body.hasIdentityProvider).toBe(true);

      const [row] = await auditRows('tenants/identity-provider/set', 1, acme.tenantId);
      expect(row).toMatchObject({
        action: 'update',
        meta: { tenantId: acme.tenantId, issuer: 'https://login.acme.example/v2.0', clientSecretReplaced: true },
      });
      expect(JSON.stringify(row)).not.toContain(SECRET);
    });

    it('keeps the stored secret and domains when a PUT gives none; scopes and claims not given are the defaults', async () => {
      const before = await storedSecret(acme.tenantId);
      const answer = await asOperator('PUT', idpOf(acme), {
        issuer: 'https://login.acme.example/v2.0',
        clientId: 'broker-2',
      });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        clientId: 'broker-2',
        domains: ['acme.example'],
        scopes: ['openid', 'profile', 'email'],
        claims: { organization: 'organization', job: 'job' },
      });
      expect((await storedSecret(acme.tenantId))?.equals(before as Buffer)).toBe(true);
      // An empty list removes the domains.
      const cleared = await asOperator('PUT', idpOf(acme), {
        issuer: 'https://login.acme.example/v2.0',
        clientId: 'broker-2',
        domains: [],
      });
      expect(cleared.body.domains).toEqual([]);
      const rows = await auditRows('tenants/identity-provider/set', 3, acme.tenantId);
      expect(rows.map((row) => row.meta.clientSecretReplaced)).toEqual([true, false, false]);
    });

    it('answers 409 conflict to an e-mail domain of another tenant', async () => {
      const globex = await enterprise('idp-globex');
      const settings = { issuer: 'https://login.globex.example', clientId: 'g', clientSecret: SECRET };
      expect((await asOperator('PUT', idpOf(globex), { ...settings, domains: ['globex.example'] })).status).toBe(200);
      const taken = await asOperator('PUT', idpOf(acme), {
        issuer: 'https://login.acme.example/v2.0',
        clientId: 'broker-2',
        domains: ['globex.example'],
      });
      expect(codeOf(taken)).toEqual([409, 'conflict']);
      expect((await asOperator('GET', idpOf(acme))).body.domains).toEqual([]);
    });

    const base = { issuer: 'https://login.acme.example/v2.0', clientId: 'broker-2' };
    it.each([
      ['no issuer', { clientId: 'c' }],
      ['a plain-http issuer not on this machine', { ...base, issuer: 'http://login.acme.example' }],
      ['an issuer that is not a URL', { ...base, issuer: 'login.acme.example' }],
      ['an issuer with a newline', { ...base, issuer: 'https://login.acme\n.example' }],
      ['an issuer with a query', { ...base, issuer: 'https://login.acme.example/?tenant=x' }],
      ['an issuer with credentials', { ...base, issuer: 'https://u:p@login.acme.example' }],
      ['an issuer over 2000 characters', { ...base, issuer: `https://login.acme.example/${'i'.repeat(2000)}` }],
      ['no client id', { issuer: base.issuer }],
      ['a client id over 256 characters', { ...base, clientId: 'c'.repeat(257) }],
      ['a client id with a control character', { ...base, clientId: 'broker\u0000' }],
      ['an empty secret', { ...base, clientSecret: '' }],
      ['a secret over 1024 characters', { ...base, clientSecret: 's'.repeat(1025) }],
      ['a secret with a newline', { ...base, clientSecret: 'line\nbreak' }],
      ['scopes without openid', { ...base, scopes: ['email'] }],
      ['more than 30 scopes', { ...base, scopes: ['openid', ...Array.from({ length: 30 }, (_, i) => `s${i}`)] }],
      ['a scope with a space', { ...base, scopes: ['openid', 'a b'] }],
      ['scopes that are not a list', { ...base, scopes: 'openid email' }],
      ['a domain that is not one', { ...base, domains: ['not a domain'] }],
      ['more than 100 domains', { ...base, domains: Array.from({ length: 101 }, (_, i) => `d${i}.example`) }],
      ['claims of an unknown field', { ...base, claims: { department: 'dept' } }],
      ['a claim name with a space', { ...base, claims: { organization: 'my dept' } }],
      ['claims that are a list', { ...base, claims: ['organization'] }],
      ['an unknown field (a misspelt secret is not silently dropped)', { ...base, client_secret: SECRET }],
    ])('refuses a provider with %s: 400 invalid_parameter, the stored one unchanged', async (_rule, body) => {
      const before = (await asOperator('GET', idpOf(acme))).body;
      const answer = await asOperator('PUT', idpOf(acme), body);
      expect(codeOf(answer)).toEqual([400, 'invalid_parameter']);
      expect((await asOperator('GET', idpOf(acme))).body).toEqual(before);
    });

    it('removes the provider (its domains go with it); then 404', async () => {
      const gone = await enterprise('idp-gone');
      await asOperator('PUT', idpOf(gone), {
        issuer: 'https://login.gone.example',
        clientId: 'broker',
        clientSecret: SECRET,
        domains: ['gone.example'],
      });
      const answer = await asOperator('DELETE', idpOf(gone));
      expect([answer.status, answer.body]).toEqual([200, { tenantId: gone.tenantId, deleted: true }]);
      expect(codeOf(await asOperator('GET', idpOf(gone)))).toEqual([404, 'not_found']);
      expect(codeOf(await asOperator('DELETE', idpOf(gone)))).toEqual([404, 'not_found']);
      const [{ count }] = await stack.dataSource.query(
        `SELECT count(*)::int AS "count" FROM "identity"."tenant_idp_domains" WHERE "domain" = 'gone.example'`,
      );
      expect(count).toBe(0);
      const [row] = await auditRows('tenants/identity-provider/delete', 1, gone.tenantId);
      expect(row).toMatchObject({ action: 'delete', meta: { tenantId: gone.tenantId, tenant: 'idp-gone' } });
    });

    describe('test sign-in (POST .../identity-provider/test)', () => {
      let rsaJwk: Record<string, unknown>;

      beforeAll(async () => {
        const { publicKey } = await generateKeyPair('RS256', { extractable: true });
        rsaJwk = { ...(await exportJWK(publicKey)), kid: 'rsa-1', use: 'sig', alg: 'RS256' };
      });

      const discovery = (issuer: string, fields: Record<string, unknown> = {}) => ({
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        userinfo_endpoint: `${issuer}/userinfo`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        ...fields,
      });

      /** A tenant whose provider is the scripted `name`, and its test's report. */
      async function tested(
        name: string,
        answers: Record<string, (res: ServerResponse) => void>,
        issuer = provider.issuer(name),
      ): Promise<{ tenant: Tenant; answer: AdminCall }> {
        provider.script(name, answers);
        const tenant = await enterprise(`test-${name}`);
        const set = await asOperator('PUT', idpOf(tenant), { issuer, clientId: 'broker', clientSecret: SECRET });
        expect(set.status).toBe(200);
        return { tenant, answer: await asOperator('POST', `${idpOf(tenant)}/test`) };
      }
      const problemsOf = (answer: AdminCall) => (answer.body.problems as Problem[]).map((problem) => problem.code);

      it('reports a working provider: issuer match, endpoints, algorithms, keys, and how to start a real sign-in', async () => {
        const issuer = provider.issuer('good');
        const { tenant, answer } = await tested('good', {
          '/.well-known/openid-configuration': json(discovery(issuer)),
          '/jwks': json({ keys: [rsaJwk] }),
        });
        expect(answer.status).toBe(200);
        const authUrl = stack.auth.config.auth.authUrl;
        expect(answer.body).toEqual({
          ok: true,
          tenantId: tenant.tenantId,
          tenant: 'test-good',
          issuer,
          discoveryUrl: `${issuer}/.well-known/openid-configuration`,
          issuerMatches: true,
          discovered: {
            issuer,
            authorizationEndpoint: `${issuer}/authorize`,
            tokenEndpoint: `${issuer}/token`,
            userinfoEndpoint: `${issuer}/userinfo`,
            jwksUri: `${issuer}/jwks`,
            endSessionEndpoint: null,
            idTokenSigningAlgorithms: ['RS256'],
            acceptedAlgorithms: ['RS256'],
            codeChallengeMethods: ['S256'],
            scopesSupported: [],
          },
          keys: [{ kid: 'rsa-1', kty: 'RSA', alg: 'RS256', use: 'sig', usable: true }],
          problems: [],
          redirectUri: `${authUrl}/federation/auth/v1/idp/callback`,
          signIn: {
            authorizationEndpoint: `${authUrl}/federation/auth/v1/authorize`,
            parameters: { idp_hint: 'test-good', prompt: 'login' },
          },
          checkedAt: expect.any(String),
        });
        // Of the keys, never their material; of the connection, never the secret.
        expect(JSON.stringify(answer.body)).not.toContain(String(rsaJwk.n));
        expect(JSON.stringify(answer.body)).not.toContain(SECRET);
      });

      it('reports an issuer the discovery document does not name, with what the document says', async () => {
        const { answer } = await tested('mismatch', {
          '/.well-known/openid-configuration': json({
            ...discovery(provider.issuer('mismatch')),
            issuer: 'https://someone-else.example',
          }),
          '/jwks': json({ keys: [rsaJwk] }),
        });
        expect(answer.body).toMatchObject({
          ok: false,
          issuerMatches: false,
          discovered: { issuer: 'https://someone-else.example' },
        });
        expect(problemsOf(answer)).toEqual(['issuer_mismatch']);
      });

      it('reports a provider that offers only symmetric or no signatures, and a JWKS without a key for RS256', async () => {
        const issuer = provider.issuer('hs256');
        const { answer } = await tested('hs256', {
          '/.well-known/openid-configuration': json(
            discovery(issuer, { id_token_signing_alg_values_supported: ['HS256', 'none'] }),
          ),
          '/jwks': json({ keys: [rsaJwk] }),
        });
        expect(answer.body).toMatchObject({ ok: false, discovered: { acceptedAlgorithms: [] } });
        expect(problemsOf(answer)).toEqual(['no_accepted_algorithm', 'no_usable_key']);

        const ecOnly = provider.issuer('ec-only');
        const second = await tested('ec-only', {
          '/.well-known/openid-configuration': json(discovery(ecOnly)),
          '/jwks': json({ keys: [{ kty: 'EC', crv: 'P-256', kid: 'ec', x: 'x', y: 'y', use: 'sig' }] }),
        });
        expect(second.answer.body.keys).toEqual([{ kid: 'ec', kty: 'EC', alg: null, use: 'sig', usable: false }]);
        expect(problemsOf(second.answer)).toEqual(['no_usable_key']);
      });

      it('reports a discovery document that is missing (404), redirected, not JSON, or a provider that is down', async () => {
        const missing = await tested('missing', {});
        expect([missing.answer.status, problemsOf(missing.answer), missing.answer.body.discovered]).toEqual([
          200,
          ['discovery_not_found'],
          null,
        ]);
        const redirected = await tested('redirected', {
          '/.well-known/openid-configuration': (res) => {
            res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' });
            res.end();
          },
        });
        expect(problemsOf(redirected.answer)).toEqual(['discovery_unreachable']);
        expect((redirected.answer.body.problems as Problem[])[0]?.message).toContain('HTTP 302');
        const html = await tested('html', {
          '/.well-known/openid-configuration': (res) => {
            res.writeHead(200, { 'content-type': 'text/html' });
            res.end('<html>login</html>');
          },
        });
        expect(problemsOf(html.answer)).toEqual(['discovery_invalid']);
        const down = await tested('down', {}, `http://127.0.0.1:${await freePort()}`);
        expect(problemsOf(down.answer)).toEqual(['discovery_unreachable']);
        expect(down.answer.body.issuerMatches).toBeNull();
      });

      it('reports a JWKS that fails (HTTP 500), is not a key set, or is plain http beside an https issuer', async () => {
        const failing = provider.issuer('jwks-500');
        const first = await tested('jwks-500', {
          '/.well-known/openid-configuration': json(discovery(failing)),
          '/jwks': json({ error: 'boom' }, 500),
        });
        expect([problemsOf(first.answer), first.answer.body.keys]).toEqual([['jwks_unreachable'], null]);
        const garbled = provider.issuer('jwks-garbled');
        const second = await tested('jwks-garbled', {
          '/.well-known/openid-configuration': json(discovery(garbled)),
          '/jwks': json({ not: 'keys' }),
        });
        expect(problemsOf(second.answer)).toEqual(['jwks_invalid']);
        const noJwks = provider.issuer('no-jwks');
        const third = await tested('no-jwks', {
          '/.well-known/openid-configuration': json(discovery(noJwks, { jwks_uri: undefined })),
        });
        expect(problemsOf(third.answer)).toEqual(['missing_endpoint']);
      });

      it('reports a disabled tenant (its sign-ins are refused) and gives no sign-in to start', async () => {
        const issuer = provider.issuer('disabled');
        provider.script('disabled', {
          '/.well-known/openid-configuration': json(discovery(issuer)),
          '/jwks': json({ keys: [rsaJwk] }),
        });
        const tenant = await enterprise('test-disabled');
        await asOperator('PUT', idpOf(tenant), { issuer, clientId: 'broker', clientSecret: SECRET });
        await asOperator('PATCH', `/${tenant.tenantId}`, { enabled: false });
        const answer = await asOperator('POST', `${idpOf(tenant)}/test`);
        expect([answer.body.ok, problemsOf(answer), answer.body.signIn]).toEqual([false, ['tenant_disabled'], null]);
      });

      it('reports a stored secret that does not open with the key', async () => {
        const issuer = provider.issuer('sealed');
        const { tenant } = await tested('sealed', {
          '/.well-known/openid-configuration': json(discovery(issuer)),
          '/jwks': json({ keys: [rsaJwk] }),
        });
        // A ciphertext copied from another tenant's row: bound to that tenant, it does not open here.
        await stack.dataSource.query(
          `UPDATE "identity"."tenant_identity_providers" SET "client_secret_ciphertext" =
             (SELECT "client_secret_ciphertext" FROM "identity"."tenant_identity_providers" WHERE "tenant_id" = $2)
           WHERE "tenant_id" = $1`,
          [tenant.tenantId, acme.tenantId],
        );
        const answer = await asOperator('POST', `${idpOf(tenant)}/test`);
        expect(problemsOf(answer)).toEqual(['client_secret_unreadable']);
      });
    });
  });

  describe('platformctl tenants, on the same service methods', () => {
    const cli = 'dist/apps/platformctl/src/main.js';
    let env: Record<string, string>;

    beforeAll(() => {
      buildDist();
      env = {
        DATABASE_URL: stack.database.url,
        KEY_ENCRYPTION_KEY: stack.auth.nest.get<ServiceConfig>(SERVICE_CONFIG).signingKeys.encryptionKey as string,
      };
    }, 300_000);

    async function run(args: string[]) {
      const handle = startProcess(cli, ['tenants', ...args], cleanEnv(env));
      handle.child.stdin?.end('');
      const code = await handle.exited(60_000);
      return { code, output: handle.output() };
    }

    it('creates, lists, disables and deletes what the HTTP API then sees, with the same refusals', async () => {
      const made = await run(['create', 'cli-corp', '--type', 'enterprise', '--endpoint', 'https://cli.example']);
      expect(made).toMatchObject({ code: 0, output: expect.stringContaining('tenant: cli-corp') });
      const listed = (await asOperator('GET', '?search=cli-corp')).body.tenants as Tenant[];
      expect(listed).toEqual([expect.objectContaining({ name: 'cli-corp', type: 'enterprise', enabled: true })]);
      expect(await run(['create', 'cli-corp', '--type', 'saas', '--endpoint', 'https://cli.example'])).toMatchObject({
        code: 1,
        output: expect.stringContaining('refused (name_taken)'),
      });
      expect(await run(['update', 'cli-corp', '--disable'])).toMatchObject({
        code: 0,
        output: expect.stringContaining('enabled: false'),
      });
      expect((await asOperator('GET', `/${listed[0]?.tenantId}`)).body.enabled).toBe(false);
      expect(await run(['list', '--search', 'cli-'])).toMatchObject({
        code: 0,
        output: expect.stringMatching(/^cli-corp {2}enterprise {2}disabled/m),
      });
      // A tenant made over HTTP, refused by the CLI as by the API while a user belongs to it.
      expect(await run(['delete', 'with-user'])).toMatchObject({
        code: 1,
        output: expect.stringContaining('refused (in_use)'),
      });
      expect(await run(['delete', 'cli-corp'])).toMatchObject({
        code: 0,
        output: expect.stringContaining('deleted tenant cli-corp'),
      });
      expect((await asOperator('GET', `/${listed[0]?.tenantId}`)).status).toBe(404);
    });

    it('tests a provider as the API does (idp test), exiting 1 on a problem', async () => {
      const good = await run(['idp', 'test', 'test-good']);
      expect(good).toMatchObject({ code: 0, output: expect.stringContaining('issuer matches: yes') });
      expect(good.output).toContain('sign-in: {AUTH_URL}/federation/auth/v1/authorize with idp_hint=test-good');
      expect(good.output).not.toContain(SECRET);
      const mismatch = await run(['idp', 'test', 'test-mismatch']);
      expect(mismatch).toMatchObject({ code: 1, output: expect.stringContaining('problem (issuer_mismatch)') });
    });
  });
});
