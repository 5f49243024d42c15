import 'reflect-metadata';
import { Controller, type ExecutionContext, Get } from '@nestjs/common';
import { MemorySignals } from '@fed/bus';
import { type ErrorEnvelope } from '@fed/contracts';
import { type ServiceConfig } from '@fed/config';
import { authzOf } from '@fed/observability';
import { Reflector } from '@nestjs/core';
import { AccessTokenGuard } from './access-token.guard';
import { type AccessTokenPrincipal } from './access-token.principal';
import { type AccessTokenVerifier } from './access-token.verifier';
import { REVOKED_TOKEN, invalidToken } from './auth.errors';
import { CurrentPrincipal } from './current-principal.decorator';
import { Public } from './public.decorator';
import { RevocationList } from './revocation-list';
import { Scopes } from './scopes.decorator';
import { type AuthTestApp, startAuthTestApp, testServiceConfig } from './testing/auth-test-app';
import { JwksServer } from './testing/jwks-server';
import { TestTokenIssuer } from './testing/token-issuer';

@Controller()
class ProbeController {
  @Get('me')
  me(@CurrentPrincipal() principal: AccessTokenPrincipal) {
    return { subject: principal.subject, scopes: [...principal.scopes] };
  }

  @Public()
  @Get('health')
  health(@CurrentPrincipal() principal: AccessTokenPrincipal | undefined) {
    return { status: 'ok', principal: principal ?? null };
  }

  @Scopes('chat:exec', 'a2a:all', 'mcp:all')
  @Get('chat')
  chat() {
    return { ok: true };
  }

  @Scopes('users:read', 'users:manage')
  @Get('users')
  users() {
    return { ok: true };
  }
}

@Public()
@Controller('.well-known')
class DiscoveryController {
  @Get('openid-configuration')
  discovery() {
    return { issuer: 'test' };
  }

  @Scopes('master:manage')
  @Get('protected')
  protectedOne() {
    return { ok: true };
  }
}

@Scopes('logs:read')
@Controller('logs')
class LogsController {
  @Get()
  list() {
    return { ok: true };
  }

  @Scopes('master:manage')
  @Get('masters')
  masters() {
    return { ok: true };
  }

  @Public()
  @Get('retention')
  retention() {
    return { days: 90 };
  }
}

const controllers = [ProbeController, DiscoveryController, LogsController];
const now = () => Math.floor(Date.now() / 1000);

describe('AccessTokenGuard in a Nest app', () => {
  let issuer: TestTokenIssuer;
  let jwks: JwksServer;

  beforeAll(async () => {
    issuer = await TestTokenIssuer.create();
    jwks = await JwksServer.start(() => issuer.jwks());
  });

  afterAll(async () => {
    await jwks.close();
    await issuer.close();
  });

  const call = (app: AuthTestApp, path: string, authorization?: string) =>
    fetch(`${app.url}${path}`, { headers: authorization === undefined ? {} : { authorization } });
  const errorOf = async (response: Response) => ((await response.json()) as ErrorEnvelope).error;
  const bearer = async (claims: Record<string, unknown> = {}) => `Bearer ${await issuer.mint(claims)}`;
  // A user's management scope counts only while the user is an admin (the role rule).
  const admin = { realm_access: { roles: ['admin'] } };

  describe('saas edition', () => {
    let app: AuthTestApp;
    let signals: MemorySignals;

    beforeAll(async () => {
      signals = new MemorySignals();
      const config = testServiceConfig({ issuer: issuer.issuer, jwksUrl: jwks.url });
      app = await startAuthTestApp({ config, signals, controllers });
    });

    afterAll(async () => {
      await app.close();
      await signals.close();
    });

    it('refuses a request without a token with 401, the error envelope and a Bearer challenge', async () => {
      const response = await call(app, '/me');
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="federation"');
      expect(await errorOf(response)).toEqual({
        type: 'authentication_error',
        code: 'invalid_token',
        message: 'an access token is required',
      });
    });

    it.each([
      ['another scheme', 'Basic dXNlcjpwYXNzd29yZA=='],
      ['Bearer with no token', 'Bearer'],
      ['two tokens', 'Bearer abc.def.ghi jkl.mno.pqr'],
      ['a token that is not token68', 'Bearer abc,def'],
    ])('refuses a malformed Authorization header (%s) with 401', async (_case, authorization) => {
      const response = await call(app, '/me', authorization);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect((await errorOf(response)).code).toBe('invalid_token');
    });

    it('refuses a valid token followed by a second one', async () => {
      const response = await call(app, '/me', `${await bearer()} ${await issuer.mint()}`);
      expect(response.status).toBe(401);
    });

    it('reads the scheme case-insensitively', async () => {
      const token = await issuer.mint();
      for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
        expect((await call(app, '/me', `${scheme} ${token}`)).status).toBe(200);
      }
    });

    it('never takes a token from the query string', async () => {
      const response = await fetch(`${app.url}/me?access_token=${await issuer.mint()}`);
      expect(response.status).toBe(401);
    });

    it('lets a valid token through a route without @Scopes and hands over the principal', async () => {
      const claims = issuer.claims({ scope: 'openid profile' });
      const response = await call(app, '/me', await bearer(claims));
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ subject: claims.sub, scopes: ['openid', 'profile'] });
    });

    it('refuses a validly signed token whose tenant id is not a UUID with 401 invalid_token, not a 500', async () => {
      const tenant = { id: 'acme', type: 'enterprise', endpoint: 'https://acme.example.test' };
      const response = await call(app, '/users', await bearer({ scope: 'users:manage', tenant }));
      expect(response.status).toBe(401);
      expect(await errorOf(response)).toEqual({
        type: 'authentication_error',
        code: 'invalid_token',
        message: 'the "tenant" claim is malformed',
      });
    });

    it('refuses an invalid token with 401 and says why in the challenge', async () => {
      const response = await call(app, '/me', await bearer({ exp: now() - 3600, iat: now() - 7200 }));
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(
        'Bearer realm="federation", error="invalid_token", error_description="the token has expired"',
      );
      expect(await errorOf(response)).toEqual({
        type: 'authentication_error',
        code: 'invalid_token',
        message: 'the token has expired',
      });
    });

    it('refuses a token lacking the route scope with 403 insufficient_scope', async () => {
      const response = await call(app, '/chat', await bearer({ scope: 'openid chat:history' }));
      expect(response.status).toBe(403);
      expect(response.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
      const error = await errorOf(response);
      expect(error).toMatchObject({ type: 'permission_error', code: 'insufficient_scope' });
      expect(error.message).toContain('chat:exec, a2a:all, mcp:all');
    });

    it.each([
      ['/chat', 'a2a:all'],
      ['/chat', 'mcp:all'],
      ['/users', 'users:manage'],
      ['/users', 'users:read'],
    ])('accepts any one of the listed scopes (%s with %s)', async (path, scope) => {
      expect((await call(app, path, await bearer({ scope: `openid ${scope}`, ...admin }))).status).toBe(200);
    });

    it('applies a method @Scopes over the class @Scopes', async () => {
      const logsOnly = await bearer({ scope: 'logs:read', ...admin });
      expect((await call(app, '/logs', logsOnly)).status).toBe(200);
      expect((await call(app, '/logs/masters', logsOnly)).status).toBe(403);
      expect((await call(app, '/logs/masters', await bearer({ scope: 'master:manage', ...admin }))).status).toBe(200);
    });

    it('lets the decorator nearest the route win between @Public and @Scopes', async () => {
      expect((await call(app, '/logs/retention')).status).toBe(200);
      expect((await call(app, '/.well-known/protected')).status).toBe(401);
      const logs = await bearer({ scope: 'logs:read', ...admin });
      expect((await call(app, '/.well-known/protected', logs)).status).toBe(403);
      const masters = await bearer({ scope: 'master:manage', ...admin });
      expect((await call(app, '/.well-known/protected', masters)).status).toBe(200);
    });

    it("counts a user's management scope only while the user's role is admin: 403 insufficient_scope otherwise", async () => {
      const user = await bearer({ scope: 'openid users:manage logs:read' });
      for (const path of ['/users', '/logs']) {
        const response = await call(app, path, user);
        expect(response.status).toBe(403);
        expect(await errorOf(response)).toMatchObject({
          code: 'insufficient_scope',
          message: expect.stringContaining('admin'),
        });
      }
      // A service account (Client Credentials, role M2M) holds its client's scopes whatever its role.
      const serviceAccount = await bearer({
        scope: 'users:manage',
        aud: undefined,
        preferred_username: 'service-account-etl@example.test',
        realm_access: { roles: ['M2M'] },
      });
      expect((await call(app, '/users', serviceAccount)).status).toBe(200);
    });

    it('applies a demotion or promotion (auth.role-changed) to admin routes from the next call, keeping other routes', async () => {
      const subject = issuer.claims().sub as string;
      const asAdmin = await bearer({ sub: subject, scope: 'openid users:manage chat:exec', ...admin });
      expect((await call(app, '/users', asAdmin)).status).toBe(200);

      await signals.publish('auth.role-changed', { version: 1, subject, role: 'user', changedAtMs: Date.now() });
      await new Promise((resolve) => setImmediate(resolve));
      expect((await call(app, '/users', asAdmin)).status).toBe(403);
      expect((await call(app, '/chat', asAdmin)).status).toBe(200);

      // An older change arriving late does not undo the newer one.
      await signals.publish('auth.role-changed', {
        version: 1,
        subject,
        role: 'admin',
        changedAtMs: Date.now() - 60_000,
      });
      await new Promise((resolve) => setImmediate(resolve));
      expect((await call(app, '/users', asAdmin)).status).toBe(403);

      const asUser = await bearer({ sub: subject, scope: 'openid users:manage' });
      await signals.publish('auth.role-changed', { version: 1, subject, role: 'admin', changedAtMs: Date.now() + 1 });
      await new Promise((resolve) => setImmediate(resolve));
      expect((await call(app, '/users', asUser)).status).toBe(200);
    });

    it('needs no token on a @Public route, on the method or the class', async () => {
      const health = await call(app, '/health');
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok', principal: null });
      expect((await call(app, '/.well-known/openid-configuration')).status).toBe(200);
      expect((await call(app, '/health', 'Bearer not-even-a-jwt')).status).toBe(200);
    });

    it('refuses a token revoked over Signals on the very next request', async () => {
      const claims = issuer.claims();
      const authorization = `Bearer ${await issuer.mint(claims)}`;
      expect((await call(app, '/me', authorization)).status).toBe(200);

      await signals.publish('auth.token-revoked', {
        version: 1,
        jti: claims.jti as string,
        expiresAt: claims.exp as number,
      });
      const response = await call(app, '/me', authorization);

      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('error_description="the token has been revoked"');
      expect((await call(app, '/me', await bearer({ sub: claims.sub }))).status).toBe(200);
    });

    it('ends, by auth_time_ms, the logins before a cut-off and not those after it within the same second', async () => {
      const subject = issuer.claims().sub as string;
      const cutOffMs = Date.now();
      const second = Math.floor(cutOffMs / 1000);
      const before = await bearer({ sub: subject, iat: second, auth_time: second, auth_time_ms: cutOffMs - 1 });
      const after = await bearer({ sub: subject, iat: second, auth_time: second, auth_time_ms: cutOffMs });
      // Without the claim (a token signed before it existed), the cut-off's whole second is refused.
      const legacy = await bearer({ sub: subject, iat: second });
      await signals.publish('auth.sessions-invalidated', { version: 1, subject, issuedBefore: second + 1, cutOffMs });
      await new Promise((resolve) => setImmediate(resolve));
      expect((await call(app, '/me', before)).status).toBe(401);
      expect((await call(app, '/me', after)).status).toBe(200);
      expect((await call(app, '/me', legacy)).status).toBe(401);
    });

    it('after sessions-invalidated refuses older tokens of the subject and accepts newer ones', async () => {
      const subject = issuer.claims().sub as string;
      const older = await bearer({ sub: subject, iat: now() - 120 });
      const newer = await bearer({ sub: subject, iat: now() });
      const otherSubject = await bearer({ iat: now() - 120 });
      expect((await call(app, '/me', older)).status).toBe(200);

      await signals.publish('auth.sessions-invalidated', { version: 1, subject, issuedBefore: now() - 60 });

      expect((await call(app, '/me', older)).status).toBe(401);
      expect((await call(app, '/me', newer)).status).toBe(200);
      expect((await call(app, '/me', otherSubject)).status).toBe(200);
    });
  });

  describe('marketplace edition', () => {
    let app: AuthTestApp;
    let signals: MemorySignals;

    beforeAll(async () => {
      signals = new MemorySignals();
      const config = testServiceConfig({ issuer: issuer.issuer, jwksUrl: jwks.url }, 'marketplace');
      app = await startAuthTestApp({ config, signals, controllers });
    });

    afterAll(async () => {
      await app.close();
      await signals.close();
    });

    it('skips the scope check', async () => {
      const noScopes = await bearer({ scope: 'openid' });
      expect((await call(app, '/chat', noScopes)).status).toBe(200);
      expect((await call(app, '/logs/masters', noScopes)).status).toBe(200);
    });

    it('still needs a valid token', async () => {
      expect((await call(app, '/chat')).status).toBe(401);
      expect((await call(app, '/chat', await bearer({ iss: 'https://elsewhere.example.test' }))).status).toBe(401);
    });
  });

  it('takes its tuning from AuthModule.forRoot (here: no JWKS refetch cooldown)', async () => {
    const config = testServiceConfig({ issuer: issuer.issuer, jwksUrl: jwks.url });
    // With the default cooldown a kid first seen right after a fetch waits for the cooldown to end.
    for (const [auth, afterRotation] of [
      [undefined, 401],
      [{ jwksRefetchCooldownMs: 0 }, 200],
    ] as const) {
      const signals = new MemorySignals();
      const app = await startAuthTestApp({ config, signals, controllers, auth });
      try {
        expect((await call(app, '/me', await bearer())).status).toBe(200);
        await issuer.rotate();
        expect((await call(app, '/me', await bearer())).status).toBe(afterRotation);
      } finally {
        await app.close();
        await signals.close();
      }
    }
  });

  it('stops listening for revocations when the app closes', async () => {
    const signals = new MemorySignals();
    const config = testServiceConfig({ issuer: issuer.issuer, jwksUrl: jwks.url });
    const app = await startAuthTestApp({ config, signals, controllers });
    const revocations = app.nest.get(RevocationList);
    await signals.publish('auth.token-revoked', { version: 1, jti: 'revoked-while-open', expiresAt: now() + 60 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(revocations.revokedTokenCount).toBe(1);

    await app.close();
    await signals.publish('auth.token-revoked', { version: 1, jti: 'revoked-after-close', expiresAt: now() + 60 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(revocations.revokedTokenCount).toBe(1);
    await signals.close();
  });
});

describe('AccessTokenGuard notes its decision for the access log', () => {
  const config = testServiceConfig({ issuer: 'https://issuer.example', jwksUrl: 'https://issuer.example/jwks' });
  const principal = {
    subject: 'u1',
    scopes: new Set(['logs:read']),
    isServiceAccount: true,
  } as unknown as AccessTokenPrincipal;
  const guardWith = (verify: () => Promise<AccessTokenPrincipal>) =>
    new AccessTokenGuard({ verify } as unknown as AccessTokenVerifier, new Reflector(), config as ServiceConfig);
  const contextOf = (request: object, handler: () => void) =>
    ({
      getType: () => 'http',
      getHandler: () => handler,
      getClass: () => LogsController,
      switchToHttp: () => ({ getRequest: () => request }),
    }) as unknown as ExecutionContext;

  it.each([
    ['missing_token', undefined, () => Promise.resolve(principal)],
    ['invalid_token', 'Bearer a.b.c', () => Promise.reject(invalidToken('bad signature'))],
    ['revoked_token', 'Bearer a.b.c', () => Promise.reject(invalidToken(REVOKED_TOKEN))],
  ] as const)('deny %s', async (reason, authorization, verify) => {
    const request = { headers: { authorization } };
    await expect(guardWith(verify).canActivate(contextOf(request, () => undefined))).rejects.toThrow();
    expect(authzOf(request)).toEqual({ result: 'deny', reason });
  });

  it('deny insufficient_scope, allow access_token; nothing on a public route', async () => {
    const lacking = { headers: { authorization: 'Bearer a.b.c' } };
    const noScope = { ...principal, scopes: new Set(['chat:exec']) } as AccessTokenPrincipal;
    await expect(
      guardWith(() => Promise.resolve(noScope)).canActivate(contextOf(lacking, () => undefined)),
    ).rejects.toThrow();
    expect(authzOf(lacking)).toEqual({ result: 'deny', reason: 'insufficient_scope' });
    const allowed = { headers: { authorization: 'Bearer a.b.c' } };
    await guardWith(() => Promise.resolve(principal)).canActivate(contextOf(allowed, () => undefined));
    expect(authzOf(allowed)).toEqual({ result: 'allow', reason: 'access_token' });
    const open = { headers: {} };
    const publicGuard = guardWith(() => Promise.resolve(principal));
    const publicContext = { ...contextOf(open, () => undefined), getClass: () => DiscoveryController };
    await publicGuard.canActivate(publicContext as unknown as ExecutionContext);
    expect(authzOf(open)).toBeUndefined();
  });
});
