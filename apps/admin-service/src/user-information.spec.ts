import 'reflect-metadata';
import { ClientsService } from '@fed/identity';
import { type RunningService } from '@fed/server';
import { randomUUID } from 'node:crypto';
import { type AdminStack, bootAdminStack, call } from './testing/boot-admin-stack';

const ME = '/api/v1/users/me';
const ORGANIZATIONS = '/api/v1/organizations';
const JOB_TYPES = '/api/v1/job-types';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown> & { error?: { type: string; code: string; message: string } };
}

/** One call to chat-service; a string body is sent as written (with a JSON content type unless told). */
async function send(
  service: RunningService,
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
  contentType = 'application/json',
): Promise<Answer> {
  const res = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': contentType }),
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Answer['body']) : {} };
}

/** A client-credentials client of the realm and its service-account token. */
async function serviceAccountToken(stack: AdminStack, clientId: string): Promise<string> {
  const { clientSecret } = await stack.auth.nest.get(ClientsService).create({
    clientId,
    name: clientId,
    grantTypes: ['client_credentials'],
    scopes: ['chat:history'],
  });
  const res = await fetch(`${stack.auth.url}/federation/auth/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** Document 2, "User information" and "Master data" (SaaS): chat-service beside auth-service and admin-service. */
describe('user information and master data reads (chat-service, users of the real realm)', () => {
  let stack: AdminStack;
  let admin: string; // alice: every admin scope
  const ids: Record<string, string> = {};
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    stack = await bootAdminStack();
    ids.alice = await stack.createUser('alice', { role: 'admin' });
    admin = (await stack.signIn('alice')).accessToken;
    for (const [path, code, label] of [
      ['/api/v1/admin/organizations', 'sales', 'Sales'],
      ['/api/v1/admin/organizations', 'Alpha-2', 'Alpha'],
      ['/api/v1/admin/job-types', 'eng', 'Engineer'],
    ]) {
      expect((await call(stack.admin, 'POST', path, admin, { code, label })).status).toBe(201);
    }
    ids.olga = await stack.createUser('olga', {
      displayName: 'Olga Olsen',
      organization: { id: 'sales', label: 'Sales' },
      job: { id: 'eng', label: 'Engineer' },
      bio: 'Sells things',
    });
    ids.bare = await stack.createUser('bare');
    await stack.dataSource.query(
      `INSERT INTO "identity"."tenants" ("id", "name", "type", "endpoint", "enabled", "created_at")
       VALUES ($1, 'acme', 'enterprise', 'https://acme.example.com', true, now())`,
      [randomUUID()],
    );
    ids.carl = await stack.createUser('carl', { tenantName: 'acme', role: 'admin' });
    // Tokens with openid only: no scope is needed.
    for (const login of ['olga', 'bare', 'carl']) tokens[login] = (await stack.signIn(login, 'openid')).accessToken;
  }, 120_000);

  afterAll(() => stack?.close());

  const me = (token: string) => send(stack.chat, 'GET', ME, token);
  const patch = (token: string, body?: unknown, contentType?: string) =>
    send(stack.chat, 'PATCH', ME, token, body, contentType);

  describe('GET /v1/users/me', () => {
    it("shows the caller's User object, display name and tenant, never cached", async () => {
      const answer = await me(tokens.olga);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      const [tenant] = (await stack.dataSource.query(
        `SELECT "id" FROM "identity"."tenants" WHERE "name" = 'default'`,
      )) as { id: string }[];
      expect(answer.body).toEqual({
        userId: ids.olga,
        email: 'olga@example.com',
        username: 'olga',
        emailVerified: false,
        displayName: 'Olga Olsen',
        role: 'user',
        status: 'approved',
        organization: { value: 'sales', label: 'Sales' },
        jobType: { value: 'eng', label: 'Engineer' },
        bio: 'Sells things',
        createdAt: expect.stringMatching(ISO),
        lastLoginAt: expect.stringMatching(ISO),
        tenant: { id: tenant?.id, type: 'saas', name: 'default' },
      });
    });

    it('omits organization, jobType, bio (and lastLoginAt when never signed in) when unset', async () => {
      const { body } = await me(tokens.bare);
      expect(Object.keys(body).sort()).toEqual(
        [
          'createdAt',
          'displayName',
          'email',
          'emailVerified',
          'lastLoginAt',
          'role',
          'status',
          'tenant',
          'userId',
          'username',
        ].sort(),
      );
      await stack.dataSource.query(`UPDATE "identity"."users" SET "last_login_at" = NULL WHERE "id" = $1`, [ids.bare]);
      expect((await me(tokens.bare)).body).not.toHaveProperty('lastLoginAt');
    });

    it("shows the user's own tenant: another tenant's user sees theirs", async () => {
      const { body } = await me(tokens.carl);
      expect(body).toMatchObject({
        userId: ids.carl,
        role: 'admin',
        tenant: { type: 'enterprise', name: 'acme', id: expect.any(String) },
      });
    });

    it('shows a role change, an approval and a relabelled organization made through the admin API at once', async () => {
      const userId = await stack.createUser('fresh', { organization: { id: 'sales', label: 'Sales' } });
      const token = (await stack.signIn('fresh', 'openid')).accessToken;
      expect((await me(token)).body).toMatchObject({ role: 'user', organization: { value: 'sales', label: 'Sales' } });

      // Promotion keeps the session; the token still says `user`, the answer says what is stored.
      const promoted = await call(stack.admin, 'PUT', `/api/v1/admin/users/${userId}/role`, admin, { role: 'admin' });
      expect(promoted.status).toBe(200);
      expect((await me(token)).body).toMatchObject({ role: 'admin' });

      // Back to pending behind the admin API's back (no session ended), then approved through it.
      await stack.dataSource.query(`UPDATE "identity"."users" SET "status" = 'pending' WHERE "id" = $1`, [userId]);
      expect((await me(token)).body).toMatchObject({ status: 'pending' });
      expect((await call(stack.admin, 'POST', `/api/v1/admin/users/${userId}/approve`, admin)).status).toBe(200);
      expect((await me(token)).body).toMatchObject({ status: 'approved' });

      const relabelled = await call(stack.admin, 'PATCH', '/api/v1/admin/organizations/sales', admin, {
        label: 'Sales EMEA',
      });
      expect(relabelled.status).toBe(200);
      expect((await me(token)).body).toMatchObject({ organization: { value: 'sales', label: 'Sales EMEA' } });
      await call(stack.admin, 'PATCH', '/api/v1/admin/organizations/sales', admin, { label: 'Sales' });
    });

    it('is 401 without a token or with a bad one', async () => {
      expect((await send(stack.chat, 'GET', ME, undefined)).status).toBe(401);
      const bad = await send(stack.chat, 'GET', ME, 'not-a-token');
      expect(bad.status).toBe(401);
      expect(bad.body.error).toMatchObject({ code: 'invalid_token' });
    });

    it("answers a service account's token, and a token whose user no longer exists, with 404", async () => {
      const service = await serviceAccountToken(stack, 'svc-me');
      for (const answer of [await me(service), await patch(service, { bio: 'x' })]) {
        expect(answer.status).toBe(404);
        expect(answer.body.error).toMatchObject({ type: 'not_found_error', code: 'not_found' });
      }
      const goneId = await stack.createUser('gone');
      const token = (await stack.signIn('gone', 'openid')).accessToken;
      // Removed behind the admin API's back: the token is still valid, the user is not there.
      await stack.dataSource.query(`DELETE FROM "identity"."token_families" WHERE "user_id" = $1`, [goneId]);
      await stack.dataSource.query(`DELETE FROM "identity"."users" WHERE "id" = $1`, [goneId]);
      for (const answer of [await me(token), await patch(token, { displayName: 'Ghost' })]) {
        expect(answer.status).toBe(404);
        expect(answer.body.error).toMatchObject({ code: 'not_found', message: 'no user behind this token' });
      }
    });
  });

  describe('PATCH /v1/users/me', () => {
    it('changes displayName (trimmed) and bio, and answers the updated profile as GET shows it', async () => {
      const answer = await patch(tokens.bare, { displayName: '  Bare Bones  ', bio: 'Line one\nLine\ttwo' });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.body).toMatchObject({ userId: ids.bare, displayName: 'Bare Bones', bio: 'Line one\nLine\ttwo' });
      expect((await me(tokens.bare)).body).toEqual(answer.body);
      // One field at a time keeps the other.
      expect((await patch(tokens.bare, { bio: 'Only the bio' })).body).toMatchObject({
        displayName: 'Bare Bones',
        bio: 'Only the bio',
      });
      expect((await patch(tokens.bare, { displayName: 'Bare' })).body).toMatchObject({
        displayName: 'Bare',
        bio: 'Only the bio',
      });
    });

    it('clears the bio with null, "" or white space (then omitted)', async () => {
      for (const bio of [null, '', '  \n ']) {
        await patch(tokens.bare, { bio: 'something' });
        const answer = await patch(tokens.bare, { bio });
        expect([bio, answer.status]).toEqual([bio, 200]);
        expect(answer.body).not.toHaveProperty('bio');
      }
    });

    it('accepts the longest values: displayName of 200 characters, bio of 2,000 (code points: emoji count one)', async () => {
      const answer = await patch(tokens.bare, { displayName: '🙂'.repeat(200), bio: '界'.repeat(1999) + '🙂' });
      expect(answer.status).toBe(200);
      expect([...(answer.body.displayName as string)].length).toBe(200);
      expect([...(answer.body.bio as string)].length).toBe(2000);
      await patch(tokens.bare, { displayName: 'Bare', bio: null });
    });

    it.each([
      ['displayName null', { displayName: null }],
      ['displayName a number', { displayName: 5 }],
      ['displayName an array', { displayName: ['x'] }],
      ['displayName an object', { displayName: { deep: { deeper: 'x' } } }],
      ['displayName empty', { displayName: '' }],
      ['displayName white space', { displayName: '   ' }],
      ['displayName of 201 characters', { displayName: 'a'.repeat(201) }],
      ['displayName with a line feed', { displayName: 'a\nb' }],
      ['displayName with a tab', { displayName: 'a\tb' }],
      ['displayName with NUL', { displayName: 'a\u0000b' }],
      ['displayName with a lone surrogate', { displayName: 'a\uD800b' }],
      ['displayName with DEL', { displayName: 'a\u007fb' }],
      ['bio a number', { bio: 5 }],
      ['bio an array', { bio: ['x'] }],
      ['bio of 2,001 characters', { bio: 'b'.repeat(2001) }],
      ['bio with NUL', { bio: 'a\u0000b' }],
      ['bio with a lone low surrogate', { bio: 'a\uDC00' }],
      ['bio with a carriage return', { bio: 'a\r\nb' }],
      ['bio with an escape character', { bio: 'a\u001bb' }],
      ['a bad bio beside a good name', { displayName: 'Fine', bio: 'a\u0000' }],
    ])('refuses %s with 400 invalid_parameter naming the field', async (_rule, body) => {
      const before = (await me(tokens.bare)).body;
      const answer = await patch(tokens.bare, body);
      expect(answer.status).toBe(400);
      const field = 'bio' in body ? 'bio' : 'displayName';
      expect(answer.body.error).toMatchObject({
        type: 'invalid_request_error',
        code: 'invalid_parameter',
        message: expect.stringMatching(new RegExp(`^${field} `)),
      });
      expect((await me(tokens.bare)).body).toEqual(before);
    });

    it.each([
      ['role', { role: 'admin' }],
      ['email', { email: 'x@example.com' }],
      ['organization', { organization: { value: 'sales', label: 'Sales' } }],
      ['status', { status: 'approved' }],
      ['jobType', { displayName: 'Fine', jobType: 'eng' }],
      ['username', { username: 'root' }],
      ['userId', { userId: randomUUID() }],
      ['tenant', { tenant: { name: 'acme' } }],
      ['lastLoginAt', { bio: 'x', lastLoginAt: null }],
    ])('refuses the field %s (only displayName and bio may change) with 400 naming it', async (field, body) => {
      const answer = await patch(tokens.bare, body);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({
        code: 'invalid_parameter',
        message: `unknown field "${field}"; the fields are displayName, bio`,
      });
      expect((await me(tokens.bare)).body).toMatchObject({
        role: 'user',
        email: 'bare@example.com',
        status: 'approved',
      });
    });

    it('refuses a body without displayName or bio, or not a JSON object, with 400 invalid_request', async () => {
      for (const [body, contentType] of [
        [{}, undefined],
        [undefined, undefined],
        ['displayName=x', 'application/x-www-form-urlencoded'],
        ['[]', undefined],
      ] as const) {
        const answer = await patch(tokens.bare, body, contentType);
        expect([body, answer.status, answer.body.error?.code]).toEqual([body, 400, 'invalid_request']);
      }
      // What the JSON parser refuses (malformed, or a top-level value that is not an object or array).
      for (const body of ['{"displayName": "x"', '"Bare"', 'null']) {
        const answer = await patch(tokens.bare, body);
        expect([body, answer.status, answer.body.error?.code]).toEqual([body, 400, 'invalid_json']);
      }
    });

    it("refuses a user of a tenant's identity provider (their name and bio come from it) with 400", async () => {
      const userId = await stack.createUser('idpuser', { tenantName: 'acme' });
      const token = (await stack.signIn('idpuser', 'openid')).accessToken;
      await stack.dataSource.query(`UPDATE "identity"."users" SET "idp_subject" = 'upstream-1' WHERE "id" = $1`, [
        userId,
      ]);
      const refused = await patch(token, { bio: 'mine' });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({
        code: 'invalid_request',
        message: expect.stringMatching(/identity provider/),
      });
      expect((await me(token)).body).not.toHaveProperty('bio');
    });

    it('is 401 without a token', async () => {
      expect((await send(stack.chat, 'PATCH', ME, undefined, { bio: 'x' })).status).toBe(401);
    });
  });

  describe('GET /v1/organizations and /v1/job-types', () => {
    it('lists every record as the admin API does (shape, order), to any user, cacheable by the client a minute', async () => {
      for (const [path, field] of [
        [ORGANIZATIONS, 'organizations'],
        [JOB_TYPES, 'jobTypes'],
      ] as const) {
        const answer = await send(stack.chat, 'GET', path, tokens.bare);
        expect(answer.status).toBe(200);
        expect(answer.headers.get('cache-control')).toBe('private, max-age=60');
        const adminList = await call(stack.admin, 'GET', `/api/v1/admin${path.slice('/api/v1'.length)}`, admin);
        expect(answer.body).toEqual(adminList.body);
        expect(Object.keys(answer.body)).toEqual([field]);
      }
      const organizations = (await send(stack.chat, 'GET', ORGANIZATIONS, tokens.olga)).body.organizations;
      const record = {
        platformWide: false,
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      };
      expect(organizations).toEqual([
        { code: 'Alpha-2', label: 'Alpha', ...record },
        { code: 'sales', label: 'Sales', ...record },
      ]);
      expect((await send(stack.chat, 'GET', JOB_TYPES, tokens.olga)).body).toEqual({
        jobTypes: [{ code: 'eng', label: 'Engineer', ...record }],
      });
    });

    it("shows each tenant's users exactly what their own tenant's admin manages (their tenant's entries)", async () => {
      const carlAdmin = (await stack.signIn('carl')).accessToken;
      const created = await call(stack.admin, 'POST', '/api/v1/admin/job-types', carlAdmin, {
        code: 'ops',
        label: 'Ops',
      });
      expect(created.status).toBe(201);
      const acmeAdminList = await call(stack.admin, 'GET', '/api/v1/admin/job-types', carlAdmin);
      const defaultAdminList = await call(stack.admin, 'GET', '/api/v1/admin/job-types', admin);
      expect((await send(stack.chat, 'GET', JOB_TYPES, tokens.carl)).body).toEqual(acmeAdminList.body);
      expect((await send(stack.chat, 'GET', JOB_TYPES, tokens.bare)).body).toEqual(defaultAdminList.body);
      expect((acmeAdminList.body.jobTypes as { code: string }[]).map((record) => record.code)).toEqual(['ops']);
      expect((defaultAdminList.body.jobTypes as { code: string }[]).map((record) => record.code)).toEqual(['eng']);
      await call(stack.admin, 'DELETE', '/api/v1/admin/job-types/ops', carlAdmin);
    });

    it('needs a token (401) but no scope; a service account may read them too', async () => {
      for (const path of [ORGANIZATIONS, JOB_TYPES]) {
        expect((await send(stack.chat, 'GET', path, undefined)).status).toBe(401);
      }
      const service = await serviceAccountToken(stack, 'svc-lists');
      expect((await send(stack.chat, 'GET', ORGANIZATIONS, service)).status).toBe(200);
    });

    it('keeps the admin routes in admin-service: chat-service does not serve /v1/admin/organizations', async () => {
      expect((await send(stack.chat, 'GET', '/api/v1/admin/organizations', admin)).status).toBe(404);
    });
  });
});

describe('user information and master data in the Marketplace edition', () => {
  let stack: AdminStack;
  let marketplace: string;

  beforeAll(async () => {
    stack = await bootAdminStack({ env: { EDITION: 'marketplace' } });
    const { clientSecret } = await stack.auth.nest.get(ClientsService).create({
      clientId: 'market',
      name: 'market',
      grantTypes: ['client_credentials'],
      scopes: ['chat:history'],
    });
    const res = await fetch(`${stack.auth.url}/api/v1/auth/external-service-token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: 'market', client_secret: clientSecret }),
    });
    expect(res.status).toBe(200);
    marketplace = ((await res.json()) as { access_token: string }).access_token;
  }, 120_000);

  afterAll(() => stack?.close());

  it('answers all three routes with the 404 of an unknown route', async () => {
    const unknown = await send(stack.chat, 'GET', '/api/v1/no-such-route', marketplace);
    expect(unknown.status).toBe(404);
    for (const [method, path, body] of [
      ['GET', ME, undefined],
      ['PATCH', ME, { bio: 'x' }],
      ['PATCH', ME, { role: 'admin' }],
      ['GET', ORGANIZATIONS, undefined],
      ['GET', JOB_TYPES, undefined],
    ] as const) {
      const answer = await send(stack.chat, method, path, marketplace, body);
      expect([method, path, answer.status, answer.body.error?.code, answer.body.error?.type]).toEqual([
        method,
        path,
        404,
        unknown.body.error?.code,
        unknown.body.error?.type,
      ]);
    }
  });
});
