import 'reflect-metadata';
import { CurrentRoles } from '@fed/auth';
import { type RunningService } from '@fed/server';
import { decodeJwt } from 'jose';
import { setTimeout as sleep } from 'node:timers/promises';
import { type AdminStack, bootAdminStack, call } from './testing/boot-admin-stack';

const USERS = '/api/v1/admin/users';
const MANAGEMENT = ['users:read', 'users:manage', 'master:manage', 'logs:read'];

/**
 * The role rule (issue 34, High 2): document 1 has applications (Authorization Code) choose chat, MCP and
 * A2A scopes and system integrations choose management scopes; a user of an application registered with
 * management scopes holds them only while the user's role is admin, and document 3's promotion applies
 * "from the next call". Through HTTP, real tokens of the real OIDC flow of the `console` application,
 * which is registered with every management scope.
 */
describe('the role rule: a user holds management scopes only while an admin (admin-service, auth-service, chat-service, Redis)', () => {
  let stack: AdminStack;
  let admin: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    stack = await bootAdminStack();
    ids.alice = await stack.createUser('alice', { role: 'admin' });
    admin = (await stack.signIn('alice')).accessToken;
  }, 120_000);

  afterAll(() => stack?.close());

  const scopesOf = (token: string) => String(decodeJwt(token).scope).split(' ');
  const services = (): [string, RunningService][] => [
    ['auth-service', stack.auth],
    ['admin-service', stack.admin],
    ['chat-service', stack.chat],
  ];
  /** Whether each service takes `userId` for an admin now, for a token that says `claimed`. */
  const adminNowIn = (userId: string, claimed: string) =>
    services().map(([name, service]) => [
      name,
      service.nest.get(CurrentRoles).isAdmin({ subject: userId, roles: [claimed] }),
    ]);
  async function eventually<T>(read: () => T, expected: T): Promise<number> {
    const since = Date.now();
    while (Date.now() - since < 2000) {
      if (JSON.stringify(read()) === JSON.stringify(expected)) return Date.now() - since;
      await sleep(20);
    }
    return Number.POSITIVE_INFINITY;
  }
  const roleOf = async (userId: string) =>
    (
      (await stack.dataSource.query('SELECT "role" FROM "identity"."users" WHERE "id" = $1', [userId])) as {
        role: string;
      }[]
    )[0]?.role;

  it('gives a user of an application registered with users:manage no management scope: it can neither promote itself nor delete an admin', async () => {
    ids.mallory = await stack.createUser('mallory');
    const { accessToken } = await stack.signIn('mallory');
    expect(scopesOf(accessToken)).toEqual(expect.arrayContaining(['openid', 'chat:history']));
    for (const scope of MANAGEMENT) expect(scopesOf(accessToken)).not.toContain(scope);

    const promote = await call(stack.admin, 'PUT', `${USERS}/${ids.mallory}/role`, accessToken, { role: 'admin' });
    expect([promote.status, promote.body.error?.code]).toEqual([403, 'insufficient_scope']);
    const remove = await call(stack.admin, 'DELETE', `${USERS}/${ids.alice}`, accessToken);
    expect([remove.status, remove.body.error?.code]).toEqual([403, 'insufficient_scope']);
    expect((await call(stack.admin, 'GET', USERS, accessToken)).status).toBe(403);
    expect(await roleOf(ids.mallory)).toBe('user');
    expect(await roleOf(ids.alice)).toBe('admin');
    // The application's other scopes work as before.
    expect((await call(stack.chat, 'GET', '/api/v1/conversations', accessToken)).status).toBe(200);
  });

  it("ends a demoted admin's admin routes at the next call in every service, and signing in again does not undo the demotion", async () => {
    ids.dora = await stack.createUser('dora', { role: 'admin' });
    const before = (await stack.signIn('dora')).accessToken;
    expect(scopesOf(before)).toEqual(expect.arrayContaining(['users:manage', 'logs:read']));
    expect((await call(stack.admin, 'GET', USERS, before)).status).toBe(200);

    const demoted = await call(stack.admin, 'PUT', `${USERS}/${ids.dora}/role`, admin, { role: 'user' });
    expect(demoted.status).toBe(200);
    // The token minted while she was an admin: refused at once, by admin-service and chat-service.
    expect((await call(stack.admin, 'GET', USERS, before)).status).toBe(401);
    expect((await call(stack.chat, 'GET', '/api/v1/conversations', before)).status).toBe(401);
    // Every service knows her current role, in memory, within a second.
    const everywhere = services().map(([name]) => [name, false]);
    expect(await eventually(() => adminNowIn(ids.dora, 'admin'), everywhere)).toBeLessThan(1000);

    // Signing in again (right away, in the same second as the demotion) gives no management scope.
    const again = (await stack.signIn('dora')).accessToken;
    for (const scope of MANAGEMENT) expect(scopesOf(again)).not.toContain(scope);
    expect((await call(stack.admin, 'GET', USERS, again)).status).toBe(403);
    const promote = await call(stack.admin, 'PUT', `${USERS}/${ids.dora}/role`, again, { role: 'admin' });
    expect(promote.status).toBe(403);
    expect(await roleOf(ids.dora)).toBe('user');
    expect((await call(stack.chat, 'GET', '/api/v1/conversations', again)).status).toBe(200);
  });

  it("applies a promotion from the user's next sign-in, while the existing session goes on with the scopes it was given", async () => {
    ids.pat = await stack.createUser('pat');
    const { accessToken, refreshToken } = await stack.signIn('pat');
    expect((await call(stack.admin, 'GET', USERS, accessToken)).status).toBe(403);

    expect((await call(stack.admin, 'PUT', `${USERS}/${ids.pat}/role`, admin, { role: 'admin' })).status).toBe(200);
    const everywhere = services().map(([name]) => [name, true]);
    expect(await eventually(() => adminNowIn(ids.pat, 'user'), everywhere)).toBeLessThan(1000);
    // Sessions continue: the token and its refresh token keep working, with the scopes they were signed with.
    expect((await call(stack.chat, 'GET', '/api/v1/conversations', accessToken)).status).toBe(200);
    expect((await call(stack.admin, 'GET', USERS, accessToken)).status).toBe(403);
    expect(await stack.refresh(refreshToken)).toBe(200);

    // The next authorization (no consent screen for this application) carries the management scopes.
    const next = (await stack.signIn('pat')).accessToken;
    expect(scopesOf(next)).toEqual(expect.arrayContaining(['users:manage', 'logs:read']));
    expect((await call(stack.admin, 'GET', USERS, next)).status).toBe(200);
  });
});
