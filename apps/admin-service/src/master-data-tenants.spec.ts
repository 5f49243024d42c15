import 'reflect-metadata';
import { decodeJwt } from 'jose';
import { randomUUID } from 'node:crypto';
import { type AdminStack, bootAdminStack, call } from './testing/boot-admin-stack';
import { operatorToken } from './testing/operator-token';

const kinds = [
  {
    path: '/api/v1/admin/organizations',
    userPath: '/api/v1/organizations',
    list: 'organizations',
    column: 'organization',
  },
  { path: '/api/v1/admin/job-types', userPath: '/api/v1/job-types', list: 'jobTypes', column: 'job' },
] as const;

interface Entry {
  code: string;
  label: string;
  platformWide: boolean;
}

/**
 * Master data per tenant (issue 34): each tenant's `master:manage` token manages its own organizations and
 * job types; the platform operator's token (Client Credentials, no tenant) manages the platform-wide ones
 * that every tenant sees and none may change. Two tenants' admins sign in through the real realm; the
 * operator's client is registered in no tenant and its token comes from the real token endpoint.
 */
describe('master data per tenant: organizations and job types', () => {
  let stack: AdminStack;
  const tokens: Record<'alice' | 'carl' | 'olga' | 'cora' | 'operator', string> = {
    alice: '',
    carl: '',
    olga: '',
    cora: '',
    operator: '',
  };

  beforeAll(async () => {
    stack = await bootAdminStack();
    await stack.dataSource.query(
      `INSERT INTO "identity"."tenants" ("id", "name", "type", "endpoint", "enabled", "created_at")
       VALUES ($1, 'acme', 'enterprise', 'https://acme.example.com', true, now())`,
      [randomUUID()],
    );
    // alice and olga: the default tenant's admin and user; carl and cora: acme's.
    await stack.createUser('alice', { role: 'admin' });
    await stack.createUser('olga');
    await stack.createUser('carl', { tenantName: 'acme', role: 'admin' });
    await stack.createUser('cora', { tenantName: 'acme' });
    tokens.alice = (await stack.signIn('alice')).accessToken;
    tokens.carl = (await stack.signIn('carl')).accessToken;
    tokens.olga = (await stack.signIn('olga', 'openid')).accessToken;
    tokens.cora = (await stack.signIn('cora', 'openid')).accessToken;

    // The platform operator's integration: a service account's Client Credentials token without a tenant.
    tokens.operator = await operatorToken(stack.auth, ['master:manage']);
    expect(decodeJwt(tokens.operator)).not.toHaveProperty('tenant');
  }, 120_000);

  afterAll(() => stack?.close());

  describe.each(kinds)('$path', ({ path, userPath, list, column }) => {
    const as = (who: keyof typeof tokens, method: string, suffix = '', body?: unknown) =>
      call(stack.admin, method, `${path}${suffix}`, tokens[who], body);
    const listed = async (who: keyof typeof tokens): Promise<[string, string, boolean][]> => {
      const answer = await as(who, 'GET');
      expect(answer.status).toBe(200);
      return (answer.body[list] as Entry[]).map(({ code, label, platformWide }) => [code, label, platformWide]);
    };
    const usersList = async (who: 'olga' | 'cora'): Promise<[string, string, boolean][]> => {
      const answer = await call(stack.chat, 'GET', userPath, tokens[who]);
      expect(answer.status).toBe(200);
      return (answer.body[list] as Entry[]).map(({ code, label, platformWide }) => [code, label, platformWide]);
    };
    const labelOf = async (userId: string) =>
      (
        (await stack.dataSource.query(`SELECT "${column}" AS "value" FROM "identity"."users" WHERE "id" = $1`, [
          userId,
        ])) as { value: { id: string; label: string } | null }[]
      )[0]?.value;
    const cleanUp = async (codes: string[]) => {
      await stack.dataSource.query(`UPDATE "identity"."users" SET "${column}" = NULL`);
      const table = column === 'organization' ? 'organizations' : 'job_types';
      await stack.dataSource.query(`DELETE FROM "identity"."${table}" WHERE "code" = ANY($1)`, [codes]);
    };

    it("lists a tenant's own entries and the platform-wide ones, never another tenant's; codes are unique per tenant", async () => {
      expect((await as('operator', 'POST', '', { code: 'hq', label: 'Headquarters' })).body).toMatchObject({
        code: 'hq',
        platformWide: true,
      });
      expect(await as('alice', 'POST', '', { code: 'sales', label: 'Sales' })).toMatchObject({
        status: 201,
        body: { code: 'sales', label: 'Sales', platformWide: false },
      });
      // The same code in another tenant is that tenant's own entry.
      expect(await as('carl', 'POST', '', { code: 'sales', label: 'Acme Sales' })).toMatchObject({
        status: 201,
        body: { code: 'sales', label: 'Acme Sales', platformWide: false },
      });
      expect((await as('carl', 'POST', '', { code: 'sales', label: 'Again' })).status).toBe(409);
      await as('carl', 'POST', '', { code: 'acme-only', label: 'Acme only' });

      expect(await listed('alice')).toEqual([
        ['hq', 'Headquarters', true],
        ['sales', 'Sales', false],
      ]);
      expect(await listed('carl')).toEqual([
        ['acme-only', 'Acme only', false],
        ['hq', 'Headquarters', true],
        ['sales', 'Acme Sales', false],
      ]);
      // The operator manages the platform-wide entries: those are what it lists.
      expect(await listed('operator')).toEqual([['hq', 'Headquarters', true]]);
      // Users read what their own tenant's admin lists.
      expect(await usersList('olga')).toEqual(await listed('alice'));
      expect(await usersList('cora')).toEqual(await listed('carl'));
      await cleanUp(['hq', 'sales', 'acme-only']);
    });

    it("answers 404 to a change or delete of another tenant's entry, and leaves that tenant's users' labels alone", async () => {
      await as('alice', 'POST', '', { code: 'legal', label: 'Legal' });
      await as('alice', 'POST', '', { code: 'ops', label: 'Operations' });
      await as('carl', 'POST', '', { code: 'ops', label: 'Acme Ops' });
      const olga = await stack.createUser(`olga-${column}`, { [column]: { id: 'ops', label: 'Operations' } });
      const cora = await stack.createUser(`cora-${column}`, {
        tenantName: 'acme',
        [column]: { id: 'ops', label: 'Acme Ops' },
      });
      const legalUser = await stack.createUser(`legal-${column}`, { [column]: { id: 'legal', label: 'Legal' } });

      for (const [method, body] of [
        ['PATCH', { label: 'Taken over' }],
        ['DELETE', undefined],
      ] as const) {
        const refused = await as('carl', method, '/legal', body);
        expect([method, refused.status, refused.body.error?.code]).toEqual([method, 404, 'not_found']);
      }
      // The operator does not reach a tenant's entry either.
      expect((await as('operator', 'PATCH', '/legal', { label: 'x' })).status).toBe(404);
      expect((await as('operator', 'DELETE', '/legal')).status).toBe(404);
      expect(await labelOf(legalUser)).toEqual({ id: 'legal', label: 'Legal' });

      // acme's relabel of its own `ops` relabels acme's users only.
      expect(await as('carl', 'PATCH', '/ops', { label: 'Acme Operations' })).toMatchObject({
        status: 200,
        body: { code: 'ops', label: 'Acme Operations', platformWide: false },
      });
      expect(await labelOf(cora)).toEqual({ id: 'ops', label: 'Acme Operations' });
      expect(await labelOf(olga)).toEqual({ id: 'ops', label: 'Operations' });
      expect(await listed('alice')).toContainEqual(['ops', 'Operations', false]);

      // Another tenant's users carrying the code do not keep acme's entry: only acme's own users do.
      await stack.dataSource.query(`UPDATE "identity"."users" SET "${column}" = NULL WHERE "id" = $1`, [cora]);
      expect(await as('carl', 'DELETE', '/ops')).toEqual({ status: 200, body: { code: 'ops', deleted: true } });
      expect(await listed('carl')).not.toContainEqual(expect.arrayContaining(['ops']));
      expect(await listed('alice')).toContainEqual(['ops', 'Operations', false]);
      expect(await labelOf(olga)).toEqual({ id: 'ops', label: 'Operations' });
      // alice's `ops` is still in use by olga.
      expect((await as('alice', 'DELETE', '/ops')).status).toBe(409);
      await cleanUp(['legal', 'ops']);
    });

    it('shows a platform-wide entry to every tenant, refuses their changes with 403 platform_entry_read_only, and lets the operator relabel it for every tenant', async () => {
      expect((await as('operator', 'POST', '', { code: 'board', label: 'Board' })).status).toBe(201);
      const olga = await stack.createUser(`olga-board-${column}`, { [column]: { id: 'board', label: 'Board' } });
      const cora = await stack.createUser(`cora-board-${column}`, {
        tenantName: 'acme',
        [column]: { id: 'board', label: 'Board' },
      });
      for (const who of ['alice', 'carl'] as const) {
        expect(await listed(who)).toContainEqual(['board', 'Board', true]);
        for (const [method, body] of [
          ['PATCH', { label: 'Mine now' }],
          ['DELETE', undefined],
        ] as const) {
          const refused = await as(who, method, '/board', body);
          expect([who, method, refused.status, refused.body.error]).toEqual([
            who,
            method,
            403,
            expect.objectContaining({ type: 'permission_error', code: 'platform_entry_read_only' }),
          ]);
        }
      }
      expect(await labelOf(olga)).toEqual({ id: 'board', label: 'Board' });

      // The operator's relabel reaches the users of every tenant; its delete counts every tenant's users.
      expect(await as('operator', 'PATCH', '/board', { label: 'Board of Directors' })).toMatchObject({
        status: 200,
        body: { code: 'board', label: 'Board of Directors', platformWide: true },
      });
      expect(await labelOf(olga)).toEqual({ id: 'board', label: 'Board of Directors' });
      expect(await labelOf(cora)).toEqual({ id: 'board', label: 'Board of Directors' });
      await stack.dataSource.query(`UPDATE "identity"."users" SET "${column}" = NULL WHERE "id" = $1`, [olga]);
      expect((await as('operator', 'DELETE', '/board')).status).toBe(409);
      await stack.dataSource.query(`UPDATE "identity"."users" SET "${column}" = NULL WHERE "id" = $1`, [cora]);
      expect(await as('operator', 'DELETE', '/board')).toEqual({ status: 200, body: { code: 'board', deleted: true } });
      expect(await listed('carl')).not.toContainEqual(expect.arrayContaining(['board']));
    });

    it("refuses a tenant's code that a platform-wide entry has, and a platform-wide code that a tenant has (409), also when both are created at once", async () => {
      await as('operator', 'POST', '', { code: 'shared', label: 'Shared' });
      const tenantTry = await as('carl', 'POST', '', { code: 'shared', label: 'Acme shared' });
      expect(tenantTry.status).toBe(409);
      expect(tenantTry.body.error).toMatchObject({
        code: 'conflict',
        message: expect.stringContaining('platform-wide'),
      });

      await as('carl', 'POST', '', { code: 'acme-team', label: 'Acme team' });
      const operatorTry = await as('operator', 'POST', '', { code: 'acme-team', label: 'Everyone' });
      expect(operatorTry.status).toBe(409);
      expect(operatorTry.body.error).toMatchObject({ code: 'conflict' });
      // Another tenant never learns of acme's code: it may have its own.
      expect((await as('alice', 'POST', '', { code: 'acme-team', label: 'Ours' })).status).toBe(201);

      // A tenant and the operator creating one code together: exactly one of them gets it.
      const codes = Array.from({ length: 6 }, (_, i) => `race-${i}`);
      for (const code of codes) {
        const [tenant, operator] = await Promise.all([
          as('carl', 'POST', '', { code, label: 'Acme' }),
          as('operator', 'POST', '', { code, label: 'Platform' }),
        ]);
        expect([code, [tenant.status, operator.status].sort()]).toEqual([code, [201, 409]]);
      }
      const seenByAcme = (await listed('carl')).filter(([code]) => code.startsWith('race-'));
      expect(seenByAcme).toHaveLength(codes.length);
      await cleanUp(['shared', 'acme-team', ...codes]);
    });
  });
});
