import 'reflect-metadata';
import { type RunningService } from '@fed/server';
import { ClientsService } from '@fed/identity';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type AdminStack, bootAdminStack, call } from './testing/boot-admin-stack';

const USERS = '/api/v1/admin/users';

/** Document 3, "Admin API" users rows, "User", "Errors", user status table: through HTTP, users of the real realm. */
describe('admin users API (admin-service beside auth-service and chat-service, Redis signals)', () => {
  let stack: AdminStack;
  let admin: string; // alice's token: every admin scope
  let reader: string; // a system integration's token: users:read only
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    stack = await bootAdminStack();
    // Created one after another: newest first is the reverse of this order.
    ids.alice = await stack.createUser('alice', { role: 'admin' });
    ids.rita = await stack.createUser('rita');
    ids.olga = await stack.createUser('olga', {
      organization: { id: 'sales-1', label: 'Sales' },
      job: { id: 'eng_2', label: 'Engineer' },
      bio: 'Sells things',
    });
    ids.pete = await stack.createUser('pete', { status: 'pending' });
    ids.under = await stack.createUser('under_score', { email: 'per%cent@example.com' });
    await stack.dataSource.query(
      `INSERT INTO "identity"."tenants" ("id", "name", "type", "endpoint", "enabled", "created_at")
       VALUES ($1, 'acme', 'enterprise', 'https://acme.example.com', true, now())`,
      [randomUUID()],
    );
    ids.carol = await stack.createUser('carol', { tenantName: 'acme', status: 'pending' });
    admin = (await stack.signIn('alice')).accessToken;
    // Management scopes are a system integration's (Client Credentials); a user holds them only as an admin.
    const { clientSecret } = await stack.auth.nest.get(ClientsService).create({
      clientId: 'reader',
      name: 'reader',
      grantTypes: ['client_credentials'],
      scopes: ['users:read'],
    });
    const issued = await fetch(`${stack.auth.url}/federation/auth/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'reader', client_secret: clientSecret }),
    });
    reader = ((await issued.json()) as { access_token: string }).access_token;
  }, 120_000);

  afterAll(() => stack?.close());

  const get = (query: string, token = admin) => call(stack.admin, 'GET', `${USERS}${query}`, token);
  const listed = async (query: string) => {
    const { status, body } = await get(query);
    expect(status).toBe(200);
    return (body.users as { username: string }[]).map((user) => user.username);
  };

  describe('GET /v1/admin/users', () => {
    it("lists the caller's tenant's users newest first, with total, limit, page and hasMore = page * limit < total", async () => {
      const first = await get('?limit=2');
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ total: 5, limit: 2, page: 1, hasMore: true });
      expect((first.body.users as { username: string }[]).map((user) => user.username)).toEqual([
        'under_score',
        'pete',
      ]);
      expect(await listed('?limit=2&page=2')).toEqual(['olga', 'rita']);
      const last = await get('?limit=2&page=3');
      expect(last.body).toMatchObject({ total: 5, limit: 2, page: 3, hasMore: false });
      expect((last.body.users as unknown[]).length).toBe(1);
      const beyond = await get('?limit=2&page=9');
      expect(beyond.body).toMatchObject({ users: [], total: 5, hasMore: false });
      expect(await get('')).toMatchObject({ body: { total: 5, limit: 25, page: 1, hasMore: false } });
      // carol is another tenant's user: never listed.
      expect(await listed('?limit=100')).not.toContain('carol');
    });

    it('shows every User field, and omits organization, jobType, bio and lastLoginAt when unset', async () => {
      const users = (await get('?limit=100')).body.users as Record<string, unknown>[];
      const olga = users.find((user) => user.userId === ids.olga);
      expect(olga).toEqual({
        userId: ids.olga,
        email: 'olga@example.com',
        username: 'olga',
        emailVerified: false,
        role: 'user',
        status: 'approved',
        organization: { value: 'sales-1', label: 'Sales' },
        jobType: { value: 'eng_2', label: 'Engineer' },
        bio: 'Sells things',
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      });
      const pete = users.find((user) => user.userId === ids.pete);
      expect(Object.keys(pete as object).sort()).toEqual(
        ['createdAt', 'email', 'emailVerified', 'role', 'status', 'userId', 'username'].sort(),
      );
      expect(pete).toMatchObject({ status: 'pending' });
      // alice signed in: her lastLoginAt is shown.
      const alice = users.find((user) => user.userId === ids.alice);
      expect(alice).toMatchObject({ role: 'admin', lastLoginAt: expect.stringMatching(/Z$/) });
    });

    it('filters by role, is_approved, search (e-mail or username, case-insensitive), organization and job_type', async () => {
      expect(await listed('?role=admin')).toEqual(['alice']);
      expect(await listed('?role=user')).toEqual(['under_score', 'pete', 'olga', 'rita']);
      expect(await listed('?is_approved=false')).toEqual(['pete']);
      expect(await listed('?is_approved=true')).toEqual(['under_score', 'olga', 'rita', 'alice']);
      expect(await listed('?search=OLG')).toEqual(['olga']);
      expect(await listed('?search=per%25c')).toEqual(['under_score']);
      // LIKE wildcards match themselves only.
      expect(await listed('?search=%25')).toEqual(['under_score']);
      expect(await listed('?search=_')).toEqual(['under_score']);
      expect(await listed('?search=example.COM&role=admin')).toEqual(['alice']);
      expect(await listed('?organization=sales-1')).toEqual(['olga']);
      expect(await listed('?job_type=eng_2')).toEqual(['olga']);
      expect(await listed('?organization=Sales')).toEqual([]);
      const counted = await get('?is_approved=true&limit=1');
      expect(counted.body).toMatchObject({ total: 4, hasMore: true });
    });

    it.each([
      ['limit=0'],
      ['limit=101'],
      ['limit=abc'],
      ['page=0'],
      ['page=x'],
      ['role=x'],
      ['role=ADMIN'],
      ['is_approved=yes'],
      ['is_approved=1'],
      [`search=${'a'.repeat(101)}`],
      ['search='],
      ['search=a%00b'],
      ['organization=sales!'],
      [`organization=${'a'.repeat(51)}`],
      ['job_type=a%20b'],
      [`job_type=${'b'.repeat(51)}`],
      ['role=admin&role=user'],
    ])('answers bad query parameters with 400 invalid_parameter: %s', async (query) => {
      const { status, body } = await get(`?${query}`);
      expect(status).toBe(400);
      expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_parameter' });
    });

    it('accepts the longest values: search of 100 characters, codes of 50', async () => {
      expect((await get(`?search=${'a'.repeat(100)}`)).status).toBe(200);
      expect((await get(`?organization=${'a'.repeat(50)}&job_type=${'-'.repeat(50)}`)).status).toBe(200);
    });

    it('is 401 without a token and 403 without users:read or users:manage', async () => {
      expect((await get('', '')).status).toBe(401);
      const chatOnly = (await stack.signIn('olga', 'openid chat:history')).accessToken;
      const refused = await get('', chatOnly);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'insufficient_scope' });
    });

    it('lets users:read list but not change users (403)', async () => {
      expect((await get('', reader)).status).toBe(200);
      for (const [method, path, body] of [
        ['DELETE', `/${ids.pete}`, undefined],
        ['PUT', `/${ids.pete}/role`, { role: 'admin' }],
        ['POST', `/${ids.pete}/approve`, {}],
        ['POST', `/${ids.olga}/reject`, {}],
      ] as const) {
        expect([method, (await call(stack.admin, method, `${USERS}${path}`, reader, body)).status]).toEqual([
          method,
          403,
        ]);
      }
    });
  });

  describe('state changes', () => {
    it('approves a pending user ({userId, approved: true}) and refuses approving again with 400', async () => {
      const userId = await stack.createUser('paula', { status: 'pending' });
      expect(await call(stack.admin, 'POST', `${USERS}/${userId}/approve`, admin, {})).toEqual({
        status: 200,
        body: { userId, approved: true },
      });
      const again = await call(stack.admin, 'POST', `${USERS}/${userId}/approve`, admin);
      expect(again.status).toBe(400);
      expect(again.body.error).toMatchObject({ code: 'invalid_request' });
    });

    it('rejects an approved user ({userId, status: pending}) and refuses rejecting a pending one with 400', async () => {
      const userId = await stack.createUser('roger');
      // An empty JSON body and no body at all are both accepted.
      expect(await call(stack.admin, 'POST', `${USERS}/${userId}/reject`, admin)).toEqual({
        status: 200,
        body: { userId, status: 'pending' },
      });
      const again = await call(stack.admin, 'POST', `${USERS}/${userId}/reject`, admin, {});
      expect(again.status).toBe(400);
      expect(again.body.error).toMatchObject({ code: 'invalid_request' });
      expect(await listed('?search=roger')).toEqual(['roger']);
      expect((await get('?search=roger&is_approved=false')).body.total).toBe(1);
    });

    it('changes the role of an approved user ({userId, changed: true}); promotion keeps the session', async () => {
      const userId = await stack.createUser('prom');
      const token = (await stack.signIn('prom', 'openid chat:history')).accessToken;
      expect(await call(stack.admin, 'PUT', `${USERS}/${userId}/role`, admin, { role: 'admin' })).toEqual({
        status: 200,
        body: { userId, changed: true },
      });
      expect(await listed('?role=admin&search=prom')).toEqual(['prom']);
      await sleep(1100);
      expect((await call(stack.chat, 'GET', '/api/v1/conversations', token)).status).toBe(200);
    });

    it('records each change in the audit log (resource, action, meta, actor, IP, user agent), read back through the admin API', async () => {
      const userId = await stack.createUser('audited');
      expect((await call(stack.admin, 'PUT', `${USERS}/${userId}/role`, admin, { role: 'admin' })).status).toBe(200);
      expect((await call(stack.admin, 'PUT', `${USERS}/${userId}/role`, admin, { role: 'user' })).status).toBe(200);
      // A refused change is not an action.
      expect((await call(stack.admin, 'POST', `${USERS}/${userId}/approve`, admin, {})).status).toBe(400);
      type Row = { resource: string; action: string; meta: unknown; userId: string; ipAddress: string | null };
      let rows: Row[] = [];
      for (let attempt = 0; attempt < 40 && rows.length < 2; attempt++) {
        const { body } = await call(stack.admin, 'GET', '/api/v1/admin/audit-logs?limit=100', admin);
        rows = (body.auditLogs as Row[]).filter((row) => (row.meta as { userId?: string })?.userId === userId);
        if (rows.length < 2) await sleep(100);
      }
      expect(rows).toEqual([
        expect.objectContaining({ resource: 'users/role', action: 'demote', meta: { userId, role: 'user' } }),
        expect.objectContaining({ resource: 'users/role', action: 'promote', meta: { userId, role: 'admin' } }),
      ]);
      expect(rows[0]).toMatchObject({ userId: ids.alice, ipAddress: expect.stringMatching(/127\.0\.0\.1/) });
    });

    it('refuses a role missing or invalid, or a target not approved, with 400', async () => {
      for (const body of [{}, { role: 'root' }, { role: ['admin'] }, { role: null }]) {
        const refused = await call(stack.admin, 'PUT', `${USERS}/${ids.rita}/role`, admin, body);
        expect([body, refused.status, refused.body.error?.code]).toEqual([body, 400, 'invalid_parameter']);
      }
      const notApproved = await call(stack.admin, 'PUT', `${USERS}/${ids.pete}/role`, admin, { role: 'admin' });
      expect(notApproved.status).toBe(400);
      expect(notApproved.body.error).toMatchObject({ code: 'invalid_request' });
    });

    it("answers an unknown user, a malformed id and another tenant's user with 404 on every change", async () => {
      for (const userId of [randomUUID(), 'not-a-uuid', ids.carol]) {
        for (const [method, path, body] of [
          ['DELETE', '', undefined],
          ['PUT', '/role', { role: 'admin' }],
          ['POST', '/approve', {}],
          ['POST', '/reject', {}],
        ] as const) {
          const answer = await call(stack.admin, method, `${USERS}/${userId}${path}`, admin, body);
          expect([method, path, answer.status, answer.body.error?.code]).toEqual([method, path, 404, 'not_found']);
        }
      }
      // carol was not approved by another tenant's admin.
      const [carol] = (await stack.dataSource.query('SELECT "status" FROM "identity"."users" WHERE "id" = $1', [
        ids.carol,
      ])) as { status: string }[];
      expect(carol?.status).toBe('pending');
    });

    it('refuses an admin deleting their own account with 400', async () => {
      const refused = await call(stack.admin, 'DELETE', `${USERS}/${ids.alice}`, admin);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_request' });
    });
  });

  /** Milliseconds until `service` refuses `token` (401) at `path`; Infinity when it still accepts it after 2 s. */
  async function refusalDelay(service: RunningService, path: string, token: string): Promise<number> {
    const since = Date.now();
    while (Date.now() - since < 2000) {
      if ((await call(service, 'GET', path, token)).status === 401) return Date.now() - since;
      await sleep(20);
    }
    return Number.POSITIVE_INFINITY;
  }

  describe('sessions end everywhere within a second', () => {
    it("deletes a user ({userId, deleted: true}; then 404), and the user's tokens are refused by admin-service and chat-service", async () => {
      const userId = await stack.createUser('dora', { role: 'admin' });
      const { accessToken, refreshToken } = await stack.signIn('dora');
      expect((await call(stack.admin, 'GET', USERS, accessToken)).status).toBe(200);
      expect((await call(stack.chat, 'GET', '/api/v1/conversations', accessToken)).status).toBe(200);
      await sleep(1000); // the cut-off refuses tokens of its own second: keep the sign-in out of it

      expect(await call(stack.admin, 'DELETE', `${USERS}/${userId}`, admin)).toEqual({
        status: 200,
        body: { userId, deleted: true },
      });
      expect(await refusalDelay(stack.admin, USERS, accessToken)).toBeLessThan(1000);
      expect(await refusalDelay(stack.chat, '/api/v1/conversations', accessToken)).toBeLessThan(1000);
      expect(await stack.refresh(refreshToken)).toBe(400);
      const left = (await stack.dataSource.query(
        `SELECT (SELECT count(*) FROM "identity"."token_families" WHERE "user_id" = $1)::int AS "families",
                (SELECT count(*) FROM "identity"."refresh_tokens" WHERE "user_id" = $1)::int AS "tokens"`,
        [userId],
      )) as { families: number; tokens: number }[];
      expect(left).toEqual([{ families: 0, tokens: 0 }]);

      const again = await call(stack.admin, 'DELETE', `${USERS}/${userId}`, admin);
      expect(again.status).toBe(404);
      expect(await listed('?search=dora')).toEqual([]);
      // Others' tokens keep working.
      expect((await call(stack.admin, 'GET', USERS, admin)).status).toBe(200);
    });

    it("refuses a demoted admin's existing token at chat-service and admin-service within a second", async () => {
      const userId = await stack.createUser('dean', { role: 'admin' });
      const { accessToken } = await stack.signIn('dean');
      expect((await call(stack.admin, 'GET', USERS, accessToken)).status).toBe(200);
      await sleep(1000);

      expect(await call(stack.admin, 'PUT', `${USERS}/${userId}/role`, admin, { role: 'user' })).toEqual({
        status: 200,
        body: { userId, changed: true },
      });
      expect(await refusalDelay(stack.chat, '/api/v1/conversations', accessToken)).toBeLessThan(1000);
      expect(await refusalDelay(stack.admin, USERS, accessToken)).toBeLessThan(1000);
      expect(await listed('?search=dean')).toEqual(['dean']);
      expect((await get('?search=dean&role=user')).body.total).toBe(1);
    });

    it("refuses a rejected user's existing token within a second", async () => {
      const userId = await stack.createUser('ruth');
      const { accessToken } = await stack.signIn('ruth', 'openid chat:history');
      await sleep(1000);
      expect((await call(stack.admin, 'POST', `${USERS}/${userId}/reject`, admin, {})).status).toBe(200);
      expect(await refusalDelay(stack.chat, '/api/v1/conversations', accessToken)).toBeLessThan(1000);
    });
  });
});
