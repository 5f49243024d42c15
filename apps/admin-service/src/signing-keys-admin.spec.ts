import 'reflect-metadata';
import { AuditTrail } from '@fed/audit';
import { PLATFORM_SCOPE, managementScopes } from '@fed/contracts';
import { ClientsService } from '@fed/identity';
import { decodeProtectedHeader } from 'jose';
import { type AdminCall, type AdminStack, bootAdminStack, call } from './testing/boot-admin-stack';
import { operatorToken } from './testing/operator-token';

const PATH = '/api/v1/admin/signing-keys';

interface Key {
  kid: string;
  algorithm: string;
  state: string;
  createdAt: string;
  activatesAt: string;
  retiredAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  publicJwk: Record<string, string>;
}

/** Refused callers of a platform operator's route, each signed in through the real token endpoint or code flow. */
interface Refused {
  tenantAdmin: string;
  plainUser: string;
  tenantClient: string;
}

async function clientCredentialsToken(stack: AdminStack, clientId: string, secret: string): Promise<string> {
  const res = await fetch(`${stack.auth.url}/federation/auth/v1/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  });
  if (res.status !== 200) throw new Error(`token of ${clientId}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

let tenantClients = 0;

async function refusedCallers(stack: AdminStack, login: string): Promise<Refused> {
  await stack.createUser(`${login}-admin`, { role: 'admin' });
  await stack.createUser(`${login}-user`);
  const clientId = `${login}-etl-${++tenantClients}`;
  const { clientSecret } = await stack.auth.nest.get(ClientsService).create({
    clientId,
    name: 'A tenant integration',
    grantTypes: ['client_credentials'],
    scopes: managementScopes.filter((scope) => scope !== PLATFORM_SCOPE),
  });
  return {
    tenantAdmin: (await stack.signIn(`${login}-admin`)).accessToken,
    plainUser: (await stack.signIn(`${login}-user`, 'openid')).accessToken,
    tenantClient: await clientCredentialsToken(stack, clientId, clientSecret),
  };
}

/**
 * The OpenID provider's signing keys over HTTP (`platform:manage`), as `platformctl keys` manages them: auth-,
 * admin- and chat-service apart on the real PostgreSQL and Redis, as a distributed install runs them. What a
 * rotation or revocation does is watched where it matters: auth-service's JWKS, the tokens it signs, and
 * admin-service's own verification of them.
 */
describe('the signing keys API (/api/v1/admin/signing-keys, platform:manage)', () => {
  let stack: AdminStack;
  let operatorClient: { clientId: string; secret: string };
  let refused: Refused;

  beforeAll(async () => {
    stack = await bootAdminStack();
    refused = await refusedCallers(stack, 'keys');
    // The operator's token is fetched afresh where a revocation ends the one before.
    const clientId = 'keys-operator';
    const { clientSecret } = await stack.auth.nest.get(ClientsService).create({
      clientId,
      name: 'Platform operator',
      grantTypes: ['client_credentials'],
      scopes: [PLATFORM_SCOPE],
      operator: true,
    });
    operatorClient = { clientId, secret: clientSecret };
  }, 120_000);

  afterAll(() => stack?.close());

  const operator = () => clientCredentialsToken(stack, operatorClient.clientId, operatorClient.secret);
  const asOperator = async (method: string, suffix = '', body?: unknown): Promise<AdminCall> =>
    call(stack.admin, method, `${PATH}${suffix}`, await operator(), body);
  const keys = async (): Promise<Key[]> => {
    const answer = await asOperator('GET');
    expect(answer.status).toBe(200);
    return answer.body.signingKeys as Key[];
  };
  const publishedKids = async (): Promise<string[]> =>
    ((await (await fetch(`${stack.auth.url}/federation/auth/v1/jwks`)).json()) as { keys: { kid: string }[] }).keys.map(
      (key) => key.kid,
    );
  const signingKid = async (): Promise<string> => decodeProtectedHeader(await operator()).kid as string;

  /** Polls until `check` holds; how long it took (it fails past `withinMs`). */
  async function within(withinMs: number, check: () => Promise<boolean>): Promise<number> {
    const since = Date.now();
    for (;;) {
      if (await check()) return Date.now() - since;
      if (Date.now() - since > withinMs) throw new Error(`not within ${withinMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  async function auditRows(resource: string, count: number) {
    let rows: { action: string; meta: Record<string, unknown>; tenantId: string | null }[] = [];
    await within(10_000, async () => {
      await stack.admin.nest.get(AuditTrail).flush();
      rows = await stack.dataSource.query(
        `SELECT "action", "meta", "tenant_id" AS "tenantId" FROM "audit"."audit_logs" WHERE "resource" = $1 ORDER BY "created_at"`,
        [resource],
      );
      return rows.length >= count;
    });
    return rows;
  }

  it('refuses every caller but the platform operator on every route (401 without a token, 403 otherwise)', async () => {
    const [first] = await keys();
    for (const [method, suffix, body] of [
      ['GET', '', undefined],
      ['POST', '/rotate', {}],
      ['POST', `/${first?.kid}/revoke`, undefined],
    ] as const) {
      const answers: [string, number, string | undefined][] = [];
      for (const [who, token] of [
        ['no token', undefined],
        ['a tenant admin', refused.tenantAdmin],
        ['a plain user', refused.plainUser],
        ["a tenant's client with every other management scope", refused.tenantClient],
      ] as const) {
        const answer = await call(stack.admin, method, `${PATH}${suffix}`, token, body);
        answers.push([`${method} ${suffix} by ${who}`, answer.status, answer.body.error?.code]);
      }
      expect(answers).toEqual([
        [`${method} ${suffix} by no token`, 401, 'invalid_token'],
        [`${method} ${suffix} by a tenant admin`, 403, 'insufficient_scope'],
        [`${method} ${suffix} by a plain user`, 403, 'insufficient_scope'],
        [`${method} ${suffix} by a tenant's client with every other management scope`, 403, 'insufficient_scope'],
      ]);
    }
    // Nothing was rotated or revoked by the refused calls.
    expect((await keys()).map((key) => [key.kid, key.state])).toEqual([[first?.kid, 'active']]);
  });

  it('lists every key with its algorithm, state and times, and of its material the public JWK only', async () => {
    const answer = await asOperator('GET');
    expect(answer.status).toBe(200);
    const [key] = answer.body.signingKeys as Key[];
    expect(key).toEqual({
      kid: expect.any(String),
      algorithm: 'RS256',
      state: 'active',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      activatesAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      retiredAt: null,
      expiresAt: null,
      revokedAt: null,
      publicJwk: { kty: 'RSA', kid: key?.kid, use: 'sig', alg: 'RS256', n: expect.any(String), e: 'AQAB' },
    });
    // The key auth-service signs with and publishes.
    expect(await signingKid()).toBe(key?.kid);
    expect(await publishedKids()).toEqual([key?.kid]);
    // No private member of a JWK (d, p, q, dp, dq, qi) nor the sealed private key, anywhere in the answer.
    expect(JSON.stringify(answer.body)).not.toMatch(/"(d|p|q|dp|dq|qi|privateKey\w*)":/);
  });

  it('rotates with the default lead of 600 s: the next key is published at once and signs only then', async () => {
    const before = await signingKid();
    const startedAt = Date.now();
    const answer = await asOperator('POST', '/rotate', {});
    expect(answer.status).toBe(201);
    const next = answer.body as unknown as Key;
    expect(next).toMatchObject({ algorithm: 'RS256', state: 'next', revokedAt: null });
    const lead = (Date.parse(next.activatesAt) - startedAt) / 1000;
    expect(lead).toBeGreaterThan(595);
    expect(lead).toBeLessThan(605);
    // In auth-service's JWKS (a 5-second copy) beside the signing key, which signs on.
    await within(6000, async () => (await publishedKids()).includes(next.kid));
    expect(await publishedKids()).toEqual([before, next.kid]);
    expect(await signingKid()).toBe(before);
    const listed = await keys();
    expect(listed.map((key) => [key.kid, key.state])).toEqual([
      [before, 'active'],
      [next.kid, 'next'],
    ]);
    // The current key retires when the next one signs, and stays published for the token lifetime after.
    expect(listed[0]?.retiredAt).toBe(next.activatesAt);
    expect(Date.parse(listed[0]?.expiresAt as string)).toBeGreaterThan(Date.parse(next.activatesAt));

    const [row] = await auditRows('signing-keys/rotate', 1);
    expect(row).toEqual({
      action: 'rotate',
      meta: { kid: next.kid, activatesAt: next.activatesAt },
      tenantId: null,
    });
  });

  it('rotates with activateInSeconds 0: the new key signs from now, replacing the announced one', async () => {
    const announced = (await keys()).find((key) => key.state === 'next');
    const answer = await asOperator('POST', '/rotate', { activateInSeconds: 0 });
    expect([answer.status, (answer.body as unknown as Key).state]).toEqual([201, 'active']);
    const now = answer.body as unknown as Key;
    // auth-service follows a rotation by another process within 5 s.
    await within(6000, async () => (await signingKid()) === now.kid);
    const listed = await keys();
    expect(listed.map((key) => key.kid)).not.toContain(announced?.kid);
    expect(listed.filter((key) => key.state === 'active').map((key) => key.kid)).toEqual([now.kid]);
    expect(listed.filter((key) => key.state === 'retired')).toHaveLength(1);
  });

  it.each([
    ['a negative lead', { activateInSeconds: -1 }],
    ['a fractional lead', { activateInSeconds: 1.5 }],
    ['a lead as a string', { activateInSeconds: '600' }],
    ['a lead over 9999999 s', { activateInSeconds: 10_000_000 }],
    ['a null lead', { activateInSeconds: null }],
    ['an unknown field (now), which would otherwise rotate with the default lead', { now: true }],
  ])('refuses a rotation with %s: 400 invalid_parameter, no key added', async (_rule, body) => {
    const before = (await keys()).map((key) => key.kid);
    const answer = await asOperator('POST', '/rotate', body);
    expect([answer.status, answer.body.error?.code]).toEqual([400, 'invalid_parameter']);
    expect((await keys()).map((key) => key.kid)).toEqual(before);
  });

  it('refuses a body that is not a JSON object', async () => {
    const answer = await asOperator('POST', '/rotate', '[1]');
    expect([answer.status, answer.body.error?.code]).toEqual([400, 'invalid_request']);
  });

  it('revokes an announced key without touching the signing one', async () => {
    const signing = await signingKid();
    const next = (await asOperator('POST', '/rotate', { activateInSeconds: 600 })).body as unknown as Key;
    const answer = await asOperator('POST', `/${next.kid}/revoke`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ revoked: { kid: next.kid, state: 'revoked' }, announced: true });
    expect(answer.body).not.toHaveProperty('replacement');
    const listed = await keys();
    // The signing key signs on with no end planned, as before the rotation.
    expect(listed.find((key) => key.kid === signing)).toMatchObject({ state: 'active', retiredAt: null });
    await within(6000, async () => !(await publishedKids()).includes(next.kid));
    expect(await signingKid()).toBe(signing);
  });

  it('revokes the signing key: out of the JWKS and refused everywhere at once, a replacement signs from now', async () => {
    const token = await operator();
    const kid = decodeProtectedHeader(token).kid as string;
    expect((await call(stack.admin, 'GET', PATH, token)).status).toBe(200);

    const answer = await call(stack.admin, 'POST', `${PATH}/${kid}/revoke`, token);
    expect(answer.status).toBe(200);
    const { revoked, replacement, announced } = answer.body as unknown as {
      revoked: Key;
      replacement: Key;
      announced: boolean;
    };
    expect(revoked).toMatchObject({ kid, state: 'revoked', revokedAt: expect.any(String) });
    expect(replacement).toMatchObject({ state: 'active', revokedAt: null });
    expect(announced).toBe(true);
    // The retained signal reaches admin-service's verifier and auth-service's JWKS within a second.
    expect(await within(1000, async () => (await call(stack.admin, 'GET', PATH, token)).status === 401)).toBeLessThan(
      1000,
    );
    expect(await within(1000, async () => !(await publishedKids()).includes(kid))).toBeLessThan(1000);
    // The provider never stopped signing: the next token is signed by the replacement, and works.
    const fresh = await operator();
    expect(decodeProtectedHeader(fresh).kid).toBe(replacement.kid);
    expect((await call(stack.admin, 'GET', PATH, fresh)).status).toBe(200);
    expect((await keys()).find((key) => key.kid === kid)?.state).toBe('revoked');

    const rows = await auditRows('signing-keys/revoke', 2);
    expect(rows[rows.length - 1]).toEqual({
      action: 'revoke',
      meta: { kid, replacement: replacement.kid },
      tenantId: null,
    });
  });

  it('answers 409 conflict to a key revoked before, and 404 not_found to an unknown or malformed kid', async () => {
    const revoked = (await keys()).find((key) => key.state === 'revoked') as Key;
    const again = await asOperator('POST', `/${revoked.kid}/revoke`);
    expect([again.status, again.body.error?.code]).toEqual([409, 'conflict']);
    expect(again.body.error?.message).toContain(`was revoked at ${revoked.revokedAt}`);
    for (const kid of ['no-such-kid', 'a'.repeat(101), '%00', 'x%20y', encodeURIComponent('kid"; DROP TABLE x')]) {
      const answer = await asOperator('POST', `/${kid}/revoke`);
      expect([kid, answer.status, answer.body.error?.code]).toEqual([kid, 404, 'not_found']);
    }
    // Nothing else changed: exactly one key signs.
    expect((await keys()).filter((key) => key.state === 'active')).toHaveLength(1);
  });
});

/**
 * admin-service without auth-service's KEY_ENCRYPTION_KEY (a distributed install that did not give it one): it
 * lists the keys but refuses to seal a new one, rather than making up a key auth-service could not open.
 */
describe('the signing keys API without KEY_ENCRYPTION_KEY in admin-service', () => {
  let stack: AdminStack;
  let token: string;

  beforeAll(async () => {
    stack = await bootAdminStack({ adminEnv: { KEY_ENCRYPTION_KEY: '' } });
    token = await operatorToken(stack.auth, [PLATFORM_SCOPE]);
  }, 120_000);

  afterAll(() => stack?.close());

  it('lists, and refuses rotate and revoke with 400 invalid_request naming the variable, changing nothing', async () => {
    const listed = await call(stack.admin, 'GET', PATH, token);
    expect(listed.status).toBe(200);
    const [key] = listed.body.signingKeys as Key[];
    for (const suffix of ['/rotate', `/${key?.kid}/revoke`]) {
      const answer = await call(stack.admin, 'POST', `${PATH}${suffix}`, token, {});
      expect([suffix, answer.status, answer.body.error?.code]).toEqual([suffix, 400, 'invalid_request']);
      expect(answer.body.error?.message).toContain('KEY_ENCRYPTION_KEY');
    }
    expect((await call(stack.admin, 'GET', PATH, token)).body.signingKeys).toEqual(listed.body.signingKeys);
  });
});
