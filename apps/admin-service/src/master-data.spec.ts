import 'reflect-metadata';
import { buildDist, cleanEnv, startProcess } from '@fed/testing';
import { type AdminStack, bootAdminStack, call } from './testing/boot-admin-stack';

const kinds = [
  { path: '/api/v1/admin/organizations', list: 'organizations', userField: 'organization', column: 'organization' },
  { path: '/api/v1/admin/job-types', list: 'jobTypes', userField: 'jobType', column: 'job' },
] as const;

/** Master data (`master:manage`): organizations and job types, through HTTP and platformctl. */
describe('admin master data: organizations and job types', () => {
  let stack: AdminStack;
  let token: string;

  beforeAll(async () => {
    stack = await bootAdminStack();
    await stack.createUser('alice', { role: 'admin' });
    token = (await stack.signIn('alice')).accessToken;
  }, 120_000);

  afterAll(() => stack?.close());

  describe.each(kinds)('$path', ({ path, list, userField, column }) => {
    const send = (method: string, suffix = '', body?: unknown, bearer = token) =>
      call(stack.admin, method, `${path}${suffix}`, bearer, body);

    it('creates, lists by code (all records, not paginated), relabels and deletes records', async () => {
      expect(await send('GET')).toEqual({ status: 200, body: { [list]: [] } });
      const created = await send('POST', '', { code: 'zeta_1', label: 'Zeta', extra: 'ignored' });
      expect(created).toEqual({
        status: 201,
        body: {
          code: 'zeta_1',
          label: 'Zeta',
          platformWide: false,
          createdAt: expect.stringMatching(/Z$/),
          updatedAt: expect.any(String),
        },
      });
      expect(created.body.createdAt).toBe(created.body.updatedAt);
      await send('POST', '', { code: 'Alpha-2', label: '  Alpha  ' });
      const listed = await send('GET');
      expect((listed.body[list] as { code: string; label: string }[]).map(({ code, label }) => [code, label])).toEqual([
        ['Alpha-2', 'Alpha'],
        ['zeta_1', 'Zeta'],
      ]);

      const updated = await send('PATCH', '/zeta_1', { label: 'Zeta Team' });
      expect(updated).toMatchObject({ status: 200, body: { code: 'zeta_1', label: 'Zeta Team' } });
      expect(Date.parse(updated.body.updatedAt as string)).toBeGreaterThan(
        Date.parse(created.body.createdAt as string),
      );

      expect(await send('DELETE', '/zeta_1')).toEqual({ status: 200, body: { code: 'zeta_1', deleted: true } });
      expect(await send('DELETE', '/Alpha-2')).toMatchObject({ status: 200 });
      expect(await send('GET')).toEqual({ status: 200, body: { [list]: [] } });
    });

    it('refuses a duplicate code with 409 and an unknown code with 404', async () => {
      expect((await send('POST', '', { code: 'dup', label: 'One' })).status).toBe(201);
      const duplicate = await send('POST', '', { code: 'dup', label: 'Two' });
      expect(duplicate.status).toBe(409);
      expect(duplicate.body.error).toMatchObject({ code: 'conflict' });
      for (const [method, body] of [
        ['PATCH', { label: 'x' }],
        ['DELETE', undefined],
      ] as const) {
        const unknown = await send(method, '/nope', body);
        expect([method, unknown.status, unknown.body.error?.code]).toEqual([method, 404, 'not_found']);
      }
      await send('DELETE', '/dup');
    });

    it.each([
      [{ label: 'no code' }],
      [{ code: 'bad!', label: 'x' }],
      [{ code: 'a'.repeat(51), label: 'x' }],
      [{ code: '', label: 'x' }],
      [{ code: 12, label: 'x' }],
      [{ code: 'ok' }],
      [{ code: 'ok', label: '' }],
      [{ code: 'ok', label: '   ' }],
      [{ code: 'ok', label: 'x'.repeat(201) }],
      [{ code: 'ok', label: 'a\u0000b' }],
      [{ code: 'ok', label: 'a\uD800b' }],
      [{ code: 'ok', label: ['x'] }],
      ['"just a string"'],
    ])('refuses a bad code or label with 400: %j', async (body) => {
      const refused = await send('POST', '', body);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ type: 'invalid_request_error' });
    });

    it('refuses a bad code in the path or label in a PATCH with 400', async () => {
      await send('POST', '', { code: 'keep', label: 'Keep' });
      expect((await send('PATCH', '/keep', { label: 'x'.repeat(201) })).status).toBe(400);
      expect((await send('PATCH', '/keep', {})).status).toBe(400);
      expect((await send('PATCH', `/${'a'.repeat(51)}`, { label: 'x' })).status).toBe(400);
      expect((await send('DELETE', '/bad!')).status).toBe(400);
      expect((await send('POST', '', { code: 'x'.repeat(50), label: 'y'.repeat(200) })).status).toBe(201);
      await send('DELETE', '/keep');
      await send('DELETE', `/${'x'.repeat(50)}`);
    });

    it("keeps a code users carry (409 in_use on delete) and shows a new label in those users' objects", async () => {
      await send('POST', '', { code: 'sales', label: 'Sales' });
      const userId = await stack.createUser(`member-${column}`, { [column]: { id: 'sales', label: 'Sales' } });
      const refused = await send('DELETE', '/sales');
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({ code: 'conflict', message: expect.stringContaining('users') });

      await send('PATCH', '/sales', { label: 'Sales & Marketing' });
      const filter = userField === 'organization' ? 'organization' : 'job_type';
      const users = await call(stack.admin, 'GET', `/api/v1/admin/users?${filter}=sales`, token);
      expect(users.body.users).toEqual([
        expect.objectContaining({ userId, [userField]: { value: 'sales', label: 'Sales & Marketing' } }),
      ]);

      await stack.dataSource.query(`UPDATE "identity"."users" SET "${column}" = NULL WHERE "id" = $1`, [userId]);
      expect((await send('DELETE', '/sales')).status).toBe(200);
    });

    it('is 401 without a token and 403 without master:manage', async () => {
      expect((await send('GET', '', undefined, '')).status).toBe(401);
      await stack.createUser(`reader-${column}`);
      const reader = (await stack.signIn(`reader-${column}`, 'openid users:read users:manage')).accessToken;
      for (const [method, suffix, body] of [
        ['GET', '', undefined],
        ['POST', '', { code: 'x', label: 'x' }],
        ['PATCH', '/x', { label: 'x' }],
        ['DELETE', '/x', undefined],
      ] as const) {
        expect([method, (await send(method, suffix, body, reader)).status]).toEqual([method, 403]);
      }
    });
  });

  describe('platformctl organizations|job-types', () => {
    beforeAll(() => buildDist(), 120_000);

    const run = async (...args: string[]) => {
      const handle = startProcess(
        'dist/apps/platformctl/src/main.js',
        args,
        cleanEnv({ DATABASE_URL: stack.database.url }),
      );
      const code = await handle.exited(60_000);
      return { code, output: handle.output() };
    };

    it.each([
      ['organizations', '/api/v1/admin/organizations', 'organizations'],
      ['job-types', '/api/v1/admin/job-types', 'jobTypes'],
    ])(
      '%s: list, create, update and delete through the same service as the API',
      async (command, path, list) => {
        expect(await run(command, 'list')).toMatchObject({ code: 0, output: expect.stringMatching(/^no /) });
        expect(await run(command, 'create', 'ops', 'Operations')).toMatchObject({
          code: 0,
          output: expect.stringContaining('created ops  "Operations"'),
        });
        expect((await call(stack.admin, 'GET', path, token)).body[list]).toEqual([
          expect.objectContaining({ code: 'ops', label: 'Operations' }),
        ]);
        expect(await run(command, 'create', 'ops', 'Again')).toMatchObject({
          code: 1,
          output: expect.stringContaining('refused (code_exists)'),
        });
        expect(await run(command, 'create', 'bad!', 'x')).toMatchObject({
          code: 1,
          output: expect.stringContaining('refused (invalid_code)'),
        });
        expect((await run(command, 'update', 'ops', 'Ops')).output).toContain('updated ops  "Ops"');
        expect((await run(command, 'list')).output).toContain('ops  "Ops"');
        expect((await run(command, 'delete', 'ops')).output).toContain('deleted ops');
        expect(await run(command, 'delete', 'ops')).toMatchObject({
          code: 1,
          output: expect.stringContaining('refused (record_not_found)'),
        });
      },
      60_000,
    );

    it("manages the platform-wide entries by default and a tenant's own with --tenant (name or id)", async () => {
      expect(await run('organizations', 'create', 'hq', 'HQ')).toMatchObject({
        code: 0,
        output: expect.stringContaining('created hq  "HQ"  (platform-wide)'),
      });
      expect(await run('organizations', 'create', 'desk', 'Desk', '--tenant', 'default')).toMatchObject({
        code: 0,
        output: expect.stringContaining('created desk  "Desk"\n'),
      });
      const listed = (await call(stack.admin, 'GET', '/api/v1/admin/organizations', token)).body.organizations;
      expect((listed as { code: string; platformWide: boolean }[]).map((r) => [r.code, r.platformWide])).toEqual([
        ['desk', false],
        ['hq', true],
      ]);
      expect((await run('organizations', 'list')).output).not.toContain('desk');
      expect((await run('organizations', 'list', '--tenant', 'default')).output).toMatch(/desk {2}"Desk"\n.*hq/s);
      expect(await run('organizations', 'delete', 'desk')).toMatchObject({
        code: 1,
        output: expect.stringContaining('refused (record_not_found)'),
      });
      expect(await run('organizations', 'list', '--tenant', 'nope')).toMatchObject({
        code: 1,
        output: expect.stringContaining('refused (tenant_not_found)'),
      });
      expect((await run('organizations', 'delete', 'desk', '--tenant', 'default')).code).toBe(0);
      expect((await run('organizations', 'delete', 'hq')).code).toBe(0);
    }, 60_000);
  });
});
