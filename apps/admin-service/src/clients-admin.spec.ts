import 'reflect-metadata';
import { PLATFORM_SCOPE, managementScopes } from '@fed/contracts';
import { CLIENT_CACHE_WINDOW_MS, type ClientResponse, ClientsService, FIRST_PARTY_WEB_CLIENT_ID } from '@fed/identity';
import { signIn } from '@fed/testing';
import { WEB_CLIENT_ID } from '@fed/web-host';
import { randomUUID } from 'node:crypto';
import { type AdminCall, type AdminStack, bootAdminStack, call } from './testing/boot-admin-stack';
import { operatorToken } from './testing/operator-token';

const PATH = '/api/v1/admin/clients';
const REDIRECT_URI = 'https://app.example.com/callback';

/**
 * The platform operator's clients API (`platform:manage`): every route over the network on the real PostgreSQL
 * and Redis, auth-, admin- and chat-service apart as in a distributed install. Tokens come from the real token
 * endpoint and sign-in; a change's effect on live tokens is watched where they are used.
 */
describe('the clients API (/api/v1/admin/clients, platform:manage)', () => {
  let stack: AdminStack;
  let operator: string;
  const refused: Record<'tenantAdmin' | 'plainUser' | 'tenantClient', string> = {
    tenantAdmin: '',
    plainUser: '',
    tenantClient: '',
  };

  beforeAll(async () => {
    stack = await bootAdminStack();
    await stack.dataSource.query(
      `INSERT INTO "identity"."tenants" ("id", "name", "type", "endpoint", "enabled", "created_at")
       VALUES ($1, 'acme', 'enterprise', 'https://acme.example.com', true, now())`,
      [randomUUID()],
    );
    await stack.createUser('ada', { role: 'admin' });
    await stack.createUser('pat');
    refused.tenantAdmin = (await stack.signIn('ada')).accessToken;
    refused.plainUser = (await stack.signIn('pat', 'openid')).accessToken;
    const tenantClient = await stack.auth.nest.get(ClientsService).create({
      clientId: 'tenant-etl',
      name: 'A tenant integration',
      grantTypes: ['client_credentials'],
      scopes: managementScopes.filter((scope) => scope !== PLATFORM_SCOPE),
    });
    refused.tenantClient = await clientCredentialsToken('tenant-etl', tenantClient.clientSecret);
    operator = await operatorToken(stack.auth, [PLATFORM_SCOPE]);
    // The web app's client, as the platform makes it.
    await stack.auth.nest.get(ClientsService).create({
      clientId: FIRST_PARTY_WEB_CLIENT_ID,
      name: 'Web app',
      grantTypes: ['authorization_code', 'refresh_token'],
      redirectUris: ['https://platform.example.com/callback'],
      scopes: ['openid', 'chat:exec'],
      consentRequired: false,
      publicClient: true,
    });
  }, 120_000);

  afterAll(() => stack?.close());

  const asOperator = (method: string, suffix = '', body?: unknown): Promise<AdminCall> =>
    call(stack.admin, method, `${PATH}${suffix}`, operator, body);

  async function tokenResponse(clientId: string, secret: string, form: Record<string, string>): Promise<Response> {
    return fetch(`${stack.auth.url}/federation/auth/v1/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      },
      body: new URLSearchParams(form),
    });
  }

  async function clientCredentialsToken(clientId: string, secret: string): Promise<string> {
    const res = await tokenResponse(clientId, secret, { grant_type: 'client_credentials' });
    if (res.status !== 200) throw new Error(`token of ${clientId}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { access_token: string }).access_token;
  }

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /** Polls until `check` holds, at most `withinMs` after `since`; how long it took. */
  async function within(withinMs: number, since: number, check: () => Promise<boolean>): Promise<number> {
    for (;;) {
      if (await check()) return Date.now() - since;
      if (Date.now() - since > withinMs) throw new Error(`not within ${withinMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  async function created(body: Record<string, unknown>): Promise<CreatedClient> {
    const answer = await asOperator('POST', '', body);
    expect([answer.status, answer.body.error]).toEqual([201, undefined]);
    return answer.body as unknown as CreatedClient;
  }

  type CreatedClient = ClientResponse & { clientSecret?: string };

  const system = (clientId: string, scopes = ['logs:read']) => ({
    clientId,
    name: `System ${clientId}`,
    grantTypes: ['client_credentials'],
    scopes,
  });
  const application = (clientId: string, fields: Record<string, unknown> = {}) => ({
    clientId,
    name: `App ${clientId}`,
    grantTypes: ['authorization_code', 'refresh_token'],
    redirectUris: [REDIRECT_URI],
    scopes: ['openid', 'chat:history'],
    ...fields,
  });

  /** A user's tokens through the real code flow of `clientId`. */
  async function userTokens(clientId: string, secret: string, login: string) {
    const tokens = await signIn({
      serviceUrl: stack.auth.url,
      issuer: stack.auth.config.auth.issuer,
      clientId,
      clientSecret: secret,
      redirectUri: REDIRECT_URI,
      login,
      password: 'correct horse battery staple',
      scope: 'openid chat:history',
    });
    return { accessToken: tokens.access_token, refreshToken: tokens.refresh_token as string };
  }

  describe('who may call', () => {
    it.each([
      ['GET', '', undefined],
      ['GET', '/tenant-etl', undefined],
      ['POST', '', system('refused-etl')],
      ['PATCH', '/tenant-etl', { name: 'Taken over' }],
      ['POST', '/tenant-etl/rotate-secret', undefined],
      ['DELETE', '/tenant-etl', undefined],
    ])(
      '%s %s: refuses no token (401), a tenant admin, a plain user and a tenant client with every other management scope (403)',
      async (method: string, suffix: string, body: unknown) => {
        const answers: [string, number, string | undefined][] = [];
        for (const [who, token] of [
          ['no token', undefined],
          ['a tenant admin', refused.tenantAdmin],
          ['a plain user', refused.plainUser],
          ["a tenant's client with every other management scope", refused.tenantClient],
        ] as const) {
          const answer = await call(stack.admin, method, `${PATH}${suffix}`, token, body);
          answers.push([who, answer.status, answer.body.error?.code]);
        }
        expect(answers).toEqual([
          ['no token', 401, 'invalid_token'],
          ['a tenant admin', 403, 'insufficient_scope'],
          ['a plain user', 403, 'insufficient_scope'],
          ["a tenant's client with every other management scope", 403, 'insufficient_scope'],
        ]);
        // Nothing was done by any of them.
        const etl = await asOperator('GET', '/tenant-etl');
        expect(etl.body).toMatchObject({ name: 'A tenant integration', enabled: true });
        expect((await asOperator('GET', '/refused-etl')).status).toBe(404);
      },
    );

    it('never lists clients to a tenant admin, whatever its console asks: the role rule withholds platform:manage from an admin who is not a platform operator', async () => {
      const console = await created(
        application('ada-console', {
          scopes: ['openid', 'users:read', PLATFORM_SCOPE],
          allowManagementScopes: true,
          consentRequired: false,
        }),
      );
      const tokens = await signIn({
        serviceUrl: stack.auth.url,
        issuer: stack.auth.config.auth.issuer,
        clientId: 'ada-console',
        clientSecret: console.clientSecret as string,
        redirectUri: REDIRECT_URI,
        login: 'ada',
        password: 'correct horse battery staple',
        scope: `openid users:read ${PLATFORM_SCOPE}`,
      });
      expect(tokens.scope?.split(' ').sort()).toEqual(['openid', 'users:read']);
      const listed = await call(stack.admin, 'GET', PATH, tokens.access_token);
      expect([listed.status, listed.body.error?.code]).toEqual([403, 'insufficient_scope']);
    });
  });

  describe('GET /api/v1/admin/clients', () => {
    beforeAll(async () => {
      for (const id of ['list-a', 'list-b', 'list-c']) await created(system(id));
      await created({ ...system('list-acme'), name: 'Acme 100% ETL', tenant: 'acme' });
    });

    it('lists numbered pages by client id (limit, page, total, hasMore), never a secret or its hash', async () => {
      const first = await asOperator('GET', '?search=list-&limit=2');
      expect(first.status).toBe(200);
      expect((first.body.clients as ClientResponse[]).map((c) => c.clientId)).toEqual(['list-a', 'list-acme']);
      expect(first.body).toMatchObject({ total: 4, limit: 2, page: 1, hasMore: true });
      const second = await asOperator('GET', '?search=list-&limit=2&page=2');
      expect((second.body.clients as ClientResponse[]).map((c) => c.clientId)).toEqual(['list-b', 'list-c']);
      expect(second.body).toMatchObject({ total: 4, limit: 2, page: 2, hasMore: false });
      const beyond = await asOperator('GET', '?search=list-&limit=2&page=3');
      expect(beyond.body).toMatchObject({ clients: [], total: 4, hasMore: false });

      const all = await asOperator('GET', '?limit=100');
      expect(all.body).toMatchObject({ limit: 100, page: 1 });
      const text = JSON.stringify(all.body);
      expect(text).not.toMatch(/secret(Hash)?"|secret_hash|clientSecret/i);
      const defaults = await asOperator('GET');
      expect(defaults.body).toMatchObject({ limit: 25, page: 1 });
    });

    it('filters by a case-insensitive substring of client id or name (wildcards match themselves) and by tenant name', async () => {
      const ids = async (query: string) =>
        ((await asOperator('GET', query)).body.clients as ClientResponse[]).map((c) => c.clientId);
      expect(await ids('?search=LIST-A')).toEqual(['list-a', 'list-acme']);
      expect(await ids('?search=acme%20100%25')).toEqual(['list-acme']);
      expect(await ids('?search=list_a')).toEqual([]);
      expect(await ids('?tenant=acme')).toEqual(['list-acme']);
      expect(await ids('?tenant=acme&search=list-a')).toEqual(['list-acme']);
      expect(await ids('?tenant=nowhere')).toEqual([]);
      expect((await ids('?tenant=default&search=list-')).sort()).toEqual(['list-a', 'list-b', 'list-c']);
    });

    it.each([
      ['limit=0', 'limit must be an integer from 1 to 100'],
      ['limit=101', 'limit must be an integer from 1 to 100'],
      ['limit=ten', 'limit must be an integer from 1 to 100'],
      ['page=0', 'page must be an integer of at least 1'],
      ['page=1.5', 'page must be an integer of at least 1'],
      [`search=${'x'.repeat(101)}`, 'search must be 1-100 characters of text'],
      ['search=%20', 'search must be 1-100 characters of text'],
      ['search=a%00b', 'search must be 1-100 characters of text'],
      ['tenant=', 'tenant must be 1-100 characters of text'],
    ])('refuses %s: 400 invalid_parameter', async (query, message) => {
      const answer = await asOperator('GET', `?${query}`);
      expect([answer.status, answer.body.error?.code, answer.body.error?.message]).toEqual([
        400,
        'invalid_parameter',
        message,
      ]);
    });
  });

  describe('GET /api/v1/admin/clients/:clientId', () => {
    it('shows a client: its tenant, kind, grants, URIs, scopes, flags and times, never its secret', async () => {
      await created(application('show-app', { postLogoutRedirectUris: ['https://app.example.com/bye'] }));
      const answer = await asOperator('GET', '/show-app');
      expect(answer.status).toBe(200);
      const [tenant] = (await stack.dataSource.query(
        `SELECT "id" FROM "identity"."tenants" WHERE "name" = 'default'`,
      )) as { id: string }[];
      expect(answer.body).toEqual({
        clientId: 'show-app',
        name: 'App show-app',
        tenant: { tenantId: tenant?.id, name: 'default' },
        operator: false,
        registration: 'operator',
        public: false,
        grantTypes: ['authorization_code', 'refresh_token'],
        redirectUris: [REDIRECT_URI],
        postLogoutRedirectUris: ['https://app.example.com/bye'],
        scopes: ['openid', 'chat:history'],
        publicationStatus: 'Published',
        consentRequired: true,
        requirePkce: true,
        enabled: true,
        protected: false,
        serviceAccountId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        secretRotatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
      const web = await asOperator('GET', `/${FIRST_PARTY_WEB_CLIENT_ID}`);
      expect(web.body).toMatchObject({ public: true, secretRotatedAt: null, protected: true });
    });

    it.each([['/nobody'], [`/${'x'.repeat(65)}`], ['/%00']])('answers 404 not_found for %s', async (suffix) => {
      const answer = await asOperator('GET', suffix);
      expect([answer.status, answer.body.error?.code]).toEqual([404, 'not_found']);
    });
  });

  describe('POST /api/v1/admin/clients', () => {
    it('registers a confidential client: 201 with its secret shown once (no-store), which the token endpoint takes', async () => {
      const res = await fetch(`${stack.admin.url}${PATH}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${operator}`, 'content-type': 'application/json' },
        body: JSON.stringify(system('new-etl', ['logs:read', 'llm:invoke'])),
      });
      expect(res.status).toBe(201);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const body = (await res.json()) as CreatedClient;
      expect(body).toMatchObject({ clientId: 'new-etl', tenant: { name: 'default' }, operator: false, public: false });
      expect(body.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const token = await clientCredentialsToken('new-etl', body.clientSecret as string);
      expect((await call(stack.admin, 'GET', '/api/v1/admin/audit-logs', token)).status).toBe(200);
      // Shown once: never again.
      expect(JSON.stringify((await asOperator('GET', '/new-etl')).body)).not.toContain(body.clientSecret);
      expect(JSON.stringify((await asOperator('GET', '?search=new-etl')).body)).not.toContain(body.clientSecret);
    });

    it('registers a public client without a secret, an application in a named tenant, and the operator integration in none', async () => {
      const web = await created(application('spa', { public: true, consentRequired: false }));
      expect(web).toMatchObject({ public: true, consentRequired: false, requirePkce: true, secretRotatedAt: null });
      expect(web).not.toHaveProperty('clientSecret');
      const acme = await created({ ...application('acme-app'), tenant: 'acme', publicationStatus: 'Unpublished' });
      expect(acme).toMatchObject({ tenant: { name: 'acme' }, publicationStatus: 'Unpublished' });
      const ops = await created({ ...system('ops-etl', [PLATFORM_SCOPE, 'logs:read']), operator: true });
      expect(ops).toMatchObject({ tenant: null, operator: true, scopes: [PLATFORM_SCOPE, 'logs:read'] });
      const legacy = await created(application('legacy', { requirePkce: false }));
      expect(legacy.requirePkce).toBe(false);
      const loopback = await created(application('cli', { redirectUris: ['http://localhost:8765/cb'] }));
      expect(loopback.redirectUris).toEqual(['http://localhost:8765/cb']);
      const console = await created(
        application('console-2', { scopes: ['openid', 'users:manage', PLATFORM_SCOPE], allowManagementScopes: true }),
      );
      expect(console.scopes).toEqual(['openid', 'users:manage', PLATFORM_SCOPE]);
    });

    it.each([
      [
        'platform:manage on a tenant client_credentials client',
        system('x1', [PLATFORM_SCOPE]),
        'invalid_parameter',
        /platform:manage on a client_credentials client only for the platform operator's own integration/,
      ],
      [
        'platform:manage on an application that also has client_credentials',
        {
          ...application('x2'),
          grantTypes: ['authorization_code', 'client_credentials'],
          scopes: [PLATFORM_SCOPE],
          allowManagementScopes: true,
        },
        'invalid_parameter',
        /a client of a tenant never holds it/,
      ],
      [
        'platform:manage on an application without allowManagementScopes',
        application('x3', { scopes: ['openid', PLATFORM_SCOPE] }),
        'invalid_parameter',
        /needs allowManagementScopes/,
      ],
      [
        'a management scope on an application without allowManagementScopes',
        application('x4', { scopes: ['users:manage'] }),
        'invalid_parameter',
        /needs allowManagementScopes/,
      ],
      ['an unknown scope', system('x5', ['admin:all']), 'invalid_parameter', /unknown scope/],
      [
        'an http redirect URI that is not localhost',
        application('x6', { redirectUris: ['http://app.example.com/cb'] }),
        'invalid_parameter',
        /must use https/,
      ],
      [
        'a redirect URI with a fragment',
        application('x7', { redirectUris: ['https://app.example.com/cb#x'] }),
        'invalid_parameter',
        /fragment/,
      ],
      [
        'a relative redirect URI',
        application('x8', { redirectUris: ['/cb'] }),
        'invalid_parameter',
        /not an absolute URL/,
      ],
      [
        'authorization_code without a redirect URI',
        application('x9', { redirectUris: [] }),
        'invalid_parameter',
        /at least one redirect URI/,
      ],
      [
        'more than 20 redirect URIs',
        application('x10', { redirectUris: Array.from({ length: 21 }, (_, i) => `https://app.example.com/${i}`) }),
        'invalid_parameter',
        /at most 20/,
      ],
      [
        'a post-logout URI over http',
        application('x11', { postLogoutRedirectUris: ['http://app.example.com/bye'] }),
        'invalid_parameter',
        /post-logout redirect URI/,
      ],
      [
        'an operator application',
        { ...application('x12'), operator: true },
        'invalid_parameter',
        /only a client_credentials client may be the platform operator's integration/,
      ],
      [
        'an operator in a named tenant',
        { ...system('x13'), operator: true, tenant: 'acme' },
        'invalid_parameter',
        /belongs to no tenant/,
      ],
      [
        'a public client with client_credentials',
        { ...system('x14'), public: true },
        'invalid_parameter',
        /public client/,
      ],
      [
        'a public client without PKCE',
        application('x15', { public: true, requirePkce: false }),
        'invalid_parameter',
        /always requires PKCE/,
      ],
      [
        'refresh_token without authorization_code',
        { ...system('x16'), grantTypes: ['client_credentials', 'refresh_token'] },
        'invalid_parameter',
        /refresh_token needs authorization_code/,
      ],
      [
        'an unknown grant type',
        { ...system('x17'), grantTypes: ['password'] },
        'invalid_parameter',
        /grant types must be/,
      ],
      ['a client id with a space', system('has space'), 'invalid_parameter', /client_id must be/],
      ['a blank name', { ...system('x18'), name: '  ' }, 'invalid_parameter', /name must be/],
      ['an unknown tenant', { ...system('x19'), tenant: 'nowhere' }, 'invalid_parameter', /no tenant named "nowhere"/],
      ['no clientId', { name: 'N', grantTypes: ['client_credentials'] }, 'invalid_parameter', /clientId is required/],
      ['no grantTypes', { clientId: 'x20', name: 'N' }, 'invalid_parameter', /grantTypes is required/],
      [
        'grantTypes that is not a list',
        { ...system('x21'), grantTypes: 'client_credentials' },
        'invalid_parameter',
        /grantTypes must be a list/,
      ],
      [
        'a scope that is not a string',
        { ...system('x22'), scopes: [1] },
        'invalid_parameter',
        /each of scopes is a string/,
      ],
      [
        'a flag that is not a boolean',
        { ...system('x23'), operator: 'yes' },
        'invalid_parameter',
        /operator must be true or false/,
      ],
      ['a null field', { ...system('x24'), scopes: null }, 'invalid_parameter', /scopes must be a list/],
      ['an unknown field', { ...system('x25'), clientSecret: 'mine' }, 'invalid_parameter', /clientSecret/],
      ['a body that is not an object', [system('x26')], 'invalid_request', /JSON object/],
    ])('refuses %s: 400 and nothing registered', async (_what, body, code, message) => {
      const answer = await asOperator('POST', '', body);
      expect([answer.status, answer.body.error?.code]).toEqual([400, code]);
      expect(answer.body.error?.message).toMatch(message);
      const clientId = (body as { clientId?: string }).clientId;
      if (clientId && !clientId.includes(' ')) expect((await asOperator('GET', `/${clientId}`)).status).toBe(404);
    });

    it('answers 409 conflict for a client id that exists, keeping the first', async () => {
      const first = await created(system('twice'));
      const again = await asOperator('POST', '', { ...system('twice'), name: 'Second' });
      expect([again.status, again.body.error?.code]).toEqual([409, 'conflict']);
      expect((await asOperator('GET', '/twice')).body).toMatchObject({ name: first.name });
    });
  });

  describe('PATCH /api/v1/admin/clients/:clientId', () => {
    it('changes name, redirect URIs, post-logout redirect URIs, scopes and consent; the lists given replace the stored ones', async () => {
      await created(application('edit-app'));
      const answer = await asOperator('PATCH', '/edit-app', {
        name: 'Edited',
        redirectUris: ['https://app.example.com/cb2', 'http://127.0.0.1:9000/cb'],
        postLogoutRedirectUris: ['https://app.example.com/bye'],
        scopes: ['openid', 'chat:exec'],
        consentRequired: false,
      });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        clientId: 'edit-app',
        name: 'Edited',
        redirectUris: ['https://app.example.com/cb2', 'http://127.0.0.1:9000/cb'],
        postLogoutRedirectUris: ['https://app.example.com/bye'],
        scopes: ['openid', 'chat:exec'],
        consentRequired: false,
        enabled: true,
      });
      expect(answer.body).not.toHaveProperty('clientSecret');
      const cleared = await asOperator('PATCH', '/edit-app', { postLogoutRedirectUris: [] });
      expect(cleared.body).toMatchObject({ name: 'Edited', postLogoutRedirectUris: [] });
      const managed = await asOperator('PATCH', '/edit-app', {
        scopes: ['openid', PLATFORM_SCOPE],
        allowManagementScopes: true,
      });
      expect(managed.body).toMatchObject({ scopes: ['openid', PLATFORM_SCOPE] });
      // Its management scope was allowed when set: changing its name needs no flag again.
      expect((await asOperator('PATCH', '/edit-app', { name: 'Edited again' })).status).toBe(200);
    });

    it.each([
      [
        'an http redirect URI that is not localhost',
        { redirectUris: ['http://app.example.com/cb'] },
        'invalid_parameter',
        /must use https/,
      ],
      [
        'no redirect URI left for authorization_code',
        { redirectUris: [] },
        'invalid_parameter',
        /at least one redirect URI/,
      ],
      [
        'a redirect URI with credentials',
        { redirectUris: ['https://u:p@app.example.com/cb'] },
        'invalid_parameter',
        /credentials/,
      ],
      [
        'a management scope without allowManagementScopes',
        { scopes: ['openid', 'logs:read'] },
        'invalid_parameter',
        /needs allowManagementScopes/,
      ],
      ['an unknown scope', { scopes: ['everything'] }, 'invalid_parameter', /unknown scope/],
      ['a name with a line break', { name: 'a\nb' }, 'invalid_parameter', /name must be/],
      ['a null field', { name: null }, 'invalid_parameter', /name must be a string/],
      ['a field that may not change here', { grantTypes: ['client_credentials'] }, 'invalid_parameter', /grantTypes/],
      ['a secret', { clientSecret: 'mine' }, 'invalid_parameter', /clientSecret/],
      ['nothing to change', {}, 'invalid_request', /nothing to change/],
      ['only the flag', { allowManagementScopes: true }, 'invalid_request', /nothing to change/],
    ])('refuses %s: 400, nothing changed', async (_what, body, code, message) => {
      await asOperator('POST', '', application('strict-app'));
      const before = (await asOperator('GET', '/strict-app')).body;
      const answer = await asOperator('PATCH', '/strict-app', body);
      expect([answer.status, answer.body.error?.code]).toEqual([400, code]);
      expect(answer.body.error?.message).toMatch(message);
      expect((await asOperator('GET', '/strict-app')).body).toEqual(before);
    });

    it("refuses platform:manage on a tenant's client_credentials client, takes it on the operator's", async () => {
      await created(system('patch-etl'));
      const refusal = await asOperator('PATCH', '/patch-etl', { scopes: [PLATFORM_SCOPE] });
      expect([refusal.status, refusal.body.error?.code]).toEqual([400, 'invalid_parameter']);
      await created({ ...system('patch-ops'), operator: true });
      expect((await asOperator('PATCH', '/patch-ops', { scopes: [PLATFORM_SCOPE] })).body).toMatchObject({
        scopes: [PLATFORM_SCOPE],
      });
    });

    it('answers 404 for an unknown client', async () => {
      const answer = await asOperator('PATCH', '/nobody', { name: 'X' });
      expect([answer.status, answer.body.error?.code]).toEqual([404, 'not_found']);
    });

    it("disables a client: no token for it, its service account's and its users' live tokens refused within a second, no refresh; enabling lets it sign in again", async () => {
      const etl = await created({ ...system('off-etl', ['logs:read']) });
      const app = await created(application('off-app'));
      await stack.createUser('olive');
      const etlToken = await clientCredentialsToken('off-etl', etl.clientSecret as string);
      const user = await userTokens('off-app', app.clientSecret as string, 'olive');
      expect((await call(stack.admin, 'GET', '/api/v1/admin/audit-logs', etlToken)).status).toBe(200);
      expect((await call(stack.chat, 'GET', '/api/v1/conversations', user.accessToken)).status).toBe(200);

      for (const clientId of ['off-etl', 'off-app']) {
        const disabled = await asOperator('PATCH', `/${clientId}`, { enabled: false });
        expect([disabled.status, disabled.body.enabled]).toEqual([200, false]);
      }
      const since = Date.now();
      await within(1000, since, async () => {
        const [etlCall, userCall] = await Promise.all([
          call(stack.admin, 'GET', '/api/v1/admin/audit-logs', etlToken),
          call(stack.chat, 'GET', '/api/v1/conversations', user.accessToken),
        ]);
        return etlCall.status === 401 && userCall.status === 401;
      });
      // The token endpoint may serve the client from its cache a moment longer (CLIENT_CACHE_WINDOW_MS): a token
      // it issues then is refused too. Tries are few: a refused right secret counts against the client's throttle.
      const late: string[] = [];
      const probe = async () => {
        const res = await tokenResponse('off-etl', etl.clientSecret as string, { grant_type: 'client_credentials' });
        if (res.status === 200) late.push(((await res.json()) as { access_token: string }).access_token);
        return res.status;
      };
      await probe();
      await sleep(CLIENT_CACHE_WINDOW_MS + 100);
      expect(await probe()).toBe(401);
      for (const token of late) {
        expect((await call(stack.admin, 'GET', '/api/v1/admin/audit-logs', token)).status).toBe(401);
      }
      const refresh = await tokenResponse('off-app', app.clientSecret as string, {
        grant_type: 'refresh_token',
        refresh_token: user.refreshToken,
      });
      expect(refresh.status).toBe(401);

      const enabled = await asOperator('PATCH', '/off-etl', { enabled: true });
      expect(enabled.body.enabled).toBe(true);
      await asOperator('PATCH', '/off-app', { enabled: true });
      await sleep(CLIENT_CACHE_WINDOW_MS + 100);
      late.length = 0;
      expect(await probe()).toBe(200);
      expect((await call(stack.admin, 'GET', '/api/v1/admin/audit-logs', late[0])).status).toBe(200);
      // The sessions it had ended with the disabling: the old refresh token stays refused, a new sign-in works.
      const again = await tokenResponse('off-app', app.clientSecret as string, {
        grant_type: 'refresh_token',
        refresh_token: user.refreshToken,
      });
      expect(again.status).toBe(400);
      const signedIn = await userTokens('off-app', app.clientSecret as string, 'olive');
      expect((await call(stack.chat, 'GET', '/api/v1/conversations', signedIn.accessToken)).status).toBe(200);
    });

    it("refuses to disable the platform's own client (web): 400 invalid_request, still enabled", async () => {
      const answer = await asOperator('PATCH', `/${FIRST_PARTY_WEB_CLIENT_ID}`, { enabled: false });
      expect([answer.status, answer.body.error?.code]).toEqual([400, 'invalid_request']);
      expect(answer.body.error?.message).toMatch(/platformctl can, with --force/);
      expect((await asOperator('GET', `/${FIRST_PARTY_WEB_CLIENT_ID}`)).body).toMatchObject({ enabled: true });
    });

    it("refuses other redirect URIs, scopes or consent for the platform's own client (they follow PUBLIC_URL): 400, unchanged; its name may change", async () => {
      const before = (await asOperator('GET', `/${FIRST_PARTY_WEB_CLIENT_ID}`)).body as unknown as ClientResponse;
      for (const change of [
        { redirectUris: ['https://elsewhere.example.com/callback'] },
        { postLogoutRedirectUris: ['https://elsewhere.example.com/'] },
        { scopes: ['openid'] },
        { consentRequired: true },
      ]) {
        const answer = await asOperator('PATCH', `/${FIRST_PARTY_WEB_CLIENT_ID}`, change);
        expect([change, answer.status, answer.body.error?.code]).toEqual([change, 400, 'invalid_request']);
        expect(answer.body.error?.message).toMatch(/platformctl can, with --force/);
      }
      const renamed = await asOperator('PATCH', `/${FIRST_PARTY_WEB_CLIENT_ID}`, { name: 'The web app' });
      expect(renamed.status).toBe(200);
      expect((await asOperator('GET', `/${FIRST_PARTY_WEB_CLIENT_ID}`)).body).toMatchObject({
        name: 'The web app',
        redirectUris: before.redirectUris,
        scopes: before.scopes,
      });
      await asOperator('PATCH', `/${FIRST_PARTY_WEB_CLIENT_ID}`, { name: before.name });
    });

    it('lets only enabled change on a client that registered itself (RFC 7591)', async () => {
      // The row dynamic registration stores (OIDC_DYNAMIC_REGISTRATION is off in this stack).
      const clientId = 'dcr-host-1';
      await stack.dataSource.query(
        `INSERT INTO "identity"."clients" ("client_id", "name", "tenant_id", "secret_hash", "secret_rotated_at",
           "token_endpoint_auth_method", "registration", "redirect_uris", "grant_types", "scopes",
           "publication_status", "consent_required", "require_pkce", "service_account_id", "enabled",
           "created_at", "updated_at")
         VALUES ($1, 'An MCP host', NULL, NULL, now(), 'none', 'dynamic', '{http://127.0.0.1:33418/callback}',
           '{authorization_code}', '{mcp:all}', 'Published', true, true, $2, true, now(), now())`,
        [clientId, randomUUID()],
      );
      const shown = await asOperator('GET', `/${clientId}`);
      expect(shown.body).toMatchObject({ registration: 'dynamic', tenant: null, operator: false, public: true });
      const renamed = await asOperator('PATCH', `/${clientId}`, { name: 'Mine' });
      expect([renamed.status, renamed.body.error?.code]).toEqual([400, 'invalid_request']);
      expect((await asOperator('PATCH', `/${clientId}`, { enabled: false })).body).toMatchObject({ enabled: false });
    });
  });

  describe('POST /api/v1/admin/clients/:clientId/rotate-secret', () => {
    it('shows a new secret once (no-store); the old one stops being taken, the new one is', async () => {
      const first = await created(system('rotating'));
      // The token endpoint has read the client (its cache holds it) before the rotation.
      await clientCredentialsToken('rotating', first.clientSecret as string);
      const res = await fetch(`${stack.admin.url}${PATH}/rotating/rotate-secret`, {
        method: 'POST',
        headers: { authorization: `Bearer ${operator}` },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const rotated = (await res.json()) as CreatedClient;
      expect(rotated).toMatchObject({ clientId: 'rotating', enabled: true });
      expect(rotated.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(rotated.clientSecret).not.toBe(first.clientSecret);
      expect(new Date(rotated.secretRotatedAt as string).getTime()).toBeGreaterThan(
        new Date(first.secretRotatedAt as string).getTime(),
      );
      // The token endpoint reads a client at most 2 s late (its one-second cache).
      const since = Date.now();
      await within(2500, since, async () => {
        const res = await tokenResponse('rotating', first.clientSecret as string, { grant_type: 'client_credentials' });
        return res.status === 401;
      });
      expect(await clientCredentialsToken('rotating', rotated.clientSecret as string)).toMatch(/^ey/);
    });

    it('refuses a public client (it has no secret): 400 invalid_parameter; an unknown one: 404', async () => {
      const answer = await asOperator('POST', `/${FIRST_PARTY_WEB_CLIENT_ID}/rotate-secret`);
      expect([answer.status, answer.body.error?.code]).toEqual([400, 'invalid_parameter']);
      expect(answer.body).not.toHaveProperty('clientSecret');
      const missing = await asOperator('POST', '/nobody/rotate-secret');
      expect([missing.status, missing.body.error?.code]).toEqual([404, 'not_found']);
    });
  });

  describe('DELETE /api/v1/admin/clients/:clientId', () => {
    it("removes a client with its refresh tokens and consents; its users' and its own live access tokens are refused within a second", async () => {
      const etl = await created(system('gone-etl'));
      const app = await created(application('gone-app'));
      await stack.createUser('gus');
      const etlToken = await clientCredentialsToken('gone-etl', etl.clientSecret as string);
      const user = await userTokens('gone-app', app.clientSecret as string, 'gus');
      const [consents] = (await stack.dataSource.query(
        `SELECT count(*)::int AS "count" FROM "identity"."consents" WHERE "client_id" = 'gone-app'`,
      )) as { count: number }[];
      expect(consents?.count).toBe(1);

      for (const clientId of ['gone-etl', 'gone-app']) {
        expect((await asOperator('DELETE', `/${clientId}`)).body).toEqual({ clientId, deleted: true });
      }
      const since = Date.now();
      await within(1000, since, async () => {
        const [etlCall, userCall] = await Promise.all([
          call(stack.admin, 'GET', '/api/v1/admin/audit-logs', etlToken),
          call(stack.chat, 'GET', '/api/v1/conversations', user.accessToken),
        ]);
        return etlCall.status === 401 && userCall.status === 401;
      });
      const left = (await stack.dataSource.query(
        `SELECT (SELECT count(*) FROM "identity"."consents" WHERE "client_id" = 'gone-app')::int AS "consents",
                (SELECT count(*) FROM "identity"."refresh_tokens" WHERE "client_id" = 'gone-app')::int AS "refresh",
                (SELECT count(*) FROM "identity"."token_families" WHERE "client_id" = 'gone-app')::int AS "families"`,
      )) as { consents: number; refresh: number; families: number }[];
      expect(left).toEqual([{ consents: 0, refresh: 0, families: 0 }]);
      expect((await asOperator('GET', '/gone-app')).status).toBe(404);
      await within(3000, since, async () => {
        const res = await tokenResponse('gone-app', app.clientSecret as string, {
          grant_type: 'refresh_token',
          refresh_token: user.refreshToken,
        });
        return res.status === 401;
      });
    });

    it("answers 404 for an unknown client (also one deleted already), and refuses the platform's own client (web): 400", async () => {
      const missing = await asOperator('DELETE', '/gone-etl');
      expect([missing.status, missing.body.error?.code]).toEqual([404, 'not_found']);
      const web = await asOperator('DELETE', `/${FIRST_PARTY_WEB_CLIENT_ID}`);
      expect([web.status, web.body.error?.code]).toEqual([400, 'invalid_request']);
      expect((await asOperator('GET', `/${FIRST_PARTY_WEB_CLIENT_ID}`)).status).toBe(200);
    });
  });

  it('writes an audit row of no tenant for each change (create, update, disable, enable, rotate, delete), never a secret', async () => {
    const since = new Date(Date.now() - 1);
    const made = await created(system('audited'));
    await asOperator('PATCH', '/audited', { name: 'Audited', scopes: ['logs:read', 'users:read'] });
    await asOperator('PATCH', '/audited', { enabled: false });
    await asOperator('PATCH', '/audited', { enabled: true });
    const rotated = await asOperator('POST', '/audited/rotate-secret');
    await asOperator('DELETE', '/audited');
    // A refused change leaves no row.
    await asOperator('PATCH', '/audited', { name: 'Again' });
    const rows = await auditRows(since, 6);
    expect(rows.map((row) => [row.resource, row.action, row.tenantId])).toEqual([
      ['clients/create', 'create', null],
      ['clients/update', 'update', null],
      ['clients/update', 'disable', null],
      ['clients/update', 'enable', null],
      ['clients/rotate-secret', 'rotate_secret', null],
      ['clients/delete', 'delete', null],
    ]);
    expect(rows[0]?.meta).toMatchObject({ clientId: 'audited', grantTypes: ['client_credentials'], operator: false });
    expect(rows[1]?.meta).toMatchObject({
      clientId: 'audited',
      changed: ['name', 'scopes'],
      name: 'Audited',
      scopes: ['logs:read', 'users:read'],
    });
    expect(rows[2]?.meta).toMatchObject({ clientId: 'audited', changed: ['enabled'], enabled: false });
    const text = JSON.stringify(rows);
    expect(text).not.toContain(made.clientSecret);
    expect(text).not.toContain(rotated.body.clientSecret as string);
  });

  async function auditRows(since: Date, count: number) {
    const until = Date.now() + 10_000;
    for (;;) {
      const rows = (await stack.dataSource.query(
        `SELECT "resource", "action", "tenant_id" AS "tenantId", "meta" FROM "audit"."audit_logs"
          WHERE "resource" LIKE 'clients/%' AND "created_at" >= $1 AND "meta" ->> 'clientId' = 'audited'
          ORDER BY "created_at", "id"`,
        [since],
      )) as { resource: string; action: string; tenantId: string | null; meta: unknown }[];
      if (rows.length >= count || Date.now() > until) return rows;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it("protects the web app's own client by the id the web app signs in with", () => {
    expect(FIRST_PARTY_WEB_CLIENT_ID).toBe(WEB_CLIENT_ID);
  });
});
