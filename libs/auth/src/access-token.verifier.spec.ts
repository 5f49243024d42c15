import { createPublicKey } from 'node:crypto';
import { AccessTokenVerifier } from './access-token.verifier';
import { JwksKeySet, type JwksKeySetOptions } from './jwks-key-set';
import { RevocationList } from './revocation-list';
import { JwksServer } from './testing/jwks-server';
import { TEST_TENANT_ID, TestTokenIssuer } from './testing/token-issuer';
import { VerificationCache } from './verification-cache';

const SKEW = 10;
const MAX_TOKEN_AGE = 24 * 60 * 60;

describe('AccessTokenVerifier', () => {
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

  function verifierWith(
    options: { keys?: Partial<JwksKeySetOptions>; cache?: VerificationCache; revocations?: RevocationList } = {},
  ) {
    const keys = new JwksKeySet({ url: jwks.url, ...options.keys });
    const revocations =
      options.revocations ?? new RevocationList({ clockSkewSeconds: SKEW, maxTokenAgeSeconds: MAX_TOKEN_AGE });
    const rules = { issuer: issuer.issuer, clockSkewSeconds: SKEW, maxTokenAgeSeconds: MAX_TOKEN_AGE };
    return new AccessTokenVerifier(rules, keys, revocations, options.cache);
  }

  const now = () => Math.floor(Date.now() / 1000);
  const refusedWith = (message: string) => ({ code: 'invalid_token', status: 401, message });
  const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

  describe('a valid token', () => {
    it('is accepted and yields its principal', async () => {
      const claims = issuer.claims({
        scope: 'openid chat:exec chat:history',
        realm_access: { roles: ['user', 'admin'] },
      });
      const token = await issuer.signer.sign(
        issuer.currentKey.kid,
        { alg: 'RS256', kid: issuer.currentKey.kid },
        claims,
      );

      const principal = await verifierWith().verify(token);

      expect(principal).toMatchObject({
        subject: claims.sub,
        clientId: 'test-client',
        roles: ['user', 'admin'],
        tenant: { id: TEST_TENANT_ID, type: 'saas', endpoint: 'https://tenant-1.example.test' },
        tokenId: claims.jti,
        issuedAt: claims.iat,
        expiresAt: claims.exp,
        isServiceAccount: false,
      });
      expect([...principal.scopes]).toEqual(['openid', 'chat:exec', 'chat:history']);
      expect(principal.claims.sid).toBe(claims.sid);
    });

    it('names its tenant by the tenant id in lower case, however the token writes it', async () => {
      const token = await issuer.mint({
        tenant: { id: TEST_TENANT_ID.toUpperCase(), type: 'enterprise', endpoint: 'https://acme.example.test' },
      });
      expect((await verifierWith().verify(token)).tenant).toEqual({
        id: TEST_TENANT_ID,
        type: 'enterprise',
        endpoint: 'https://acme.example.test',
      });
    });

    it('of the Client Credentials flow is a service account', async () => {
      const token = await issuer.mint(
        { preferred_username: 'service-account-ci@clients.federation.invalid', realm_access: { roles: ['M2M'] } },
        { omit: ['aud', 'sid', 'auth_time'] },
      );
      const principal = await verifierWith().verify(token);
      expect(principal.isServiceAccount).toBe(true);
      expect(principal.roles).toEqual(['M2M']);
    });

    it('is accepted within the clock skew after exp', async () => {
      const expiresAt = now() - (SKEW - 3);
      const token = await issuer.mint({ exp: expiresAt, iat: now() - 300 });
      await expect(verifierWith().verify(token)).resolves.toMatchObject({ expiresAt });
    });

    it('is accepted within the clock skew before nbf and iat', async () => {
      // One reading of the clock: two could fall on either side of a second.
      const issuedAt = now() + (SKEW - 3);
      const token = await issuer.mint({ nbf: issuedAt, iat: issuedAt });
      await expect(verifierWith().verify(token)).resolves.toMatchObject({ issuedAt });
    });
  });

  describe('a token bound to a resource (RFC 8707: aud is its URL)', () => {
    const MCP = 'https://platform.example.com/api/v1/mcp';
    const A2A = 'https://platform.example.com/api/v1/a2a';

    it('is taken by the route of that resource, and names it', async () => {
      const token = await issuer.mint({ aud: MCP });
      const principal = await verifierWith().verify(token, MCP);
      expect(principal.resource).toBe(MCP);
    });

    it('is taken by a route serving several resources, its own among them', async () => {
      const token = await issuer.mint({ aud: A2A });
      expect((await verifierWith().verify(token, [MCP, A2A])).resource).toBe(A2A);
      await expect(verifierWith().verify(token, [MCP])).rejects.toMatchObject(
        refusedWith('the token is meant for another audience'),
      );
    });

    it('is refused by a route of another resource or of none, even once cached', async () => {
      const verifier = verifierWith();
      const token = await issuer.mint({ aud: MCP });
      await verifier.verify(token, MCP);
      for (const resource of [A2A, undefined, `${MCP}/`]) {
        await expect(verifier.verify(token, resource)).rejects.toMatchObject(
          refusedWith('the token is meant for another audience'),
        );
      }
    });

    it('a service account token for a resource is bound the same way', async () => {
      const token = await issuer.mint(
        {
          aud: MCP,
          preferred_username: 'service-account-ci@clients.federation.invalid',
          realm_access: { roles: ['M2M'] },
        },
        { omit: ['sid', 'auth_time'] },
      );
      expect(await verifierWith().verify(token, MCP)).toMatchObject({ resource: MCP, isServiceAccount: true });
      await expect(verifierWith().verify(token)).rejects.toMatchObject(
        refusedWith('the token is meant for another audience'),
      );
    });

    it('a broker token is bound to none: every route takes it, resource or not', async () => {
      for (const aud of ['broker', ['broker', 'account']]) {
        const token = await issuer.mint({ aud });
        const verifier = verifierWith();
        expect((await verifier.verify(token, MCP)).resource).toBeUndefined();
        expect((await verifier.verify(token)).resource).toBeUndefined();
      }
    });

    it('an audience list naming a resource but not broker is refused everywhere', async () => {
      const token = await issuer.mint({ aud: [MCP, A2A] });
      await expect(verifierWith().verify(token, MCP)).rejects.toMatchObject(
        refusedWith('the token is meant for another audience'),
      );
    });
  });

  describe('refuses', () => {
    it('an expired token (beyond the clock skew) with 401', async () => {
      const token = await issuer.mint({ exp: now() - SKEW - 2, iat: now() - 300 });
      await expect(verifierWith().verify(token)).rejects.toMatchObject(refusedWith('the token has expired'));
    });

    it('a token not valid yet (nbf beyond the clock skew)', async () => {
      const token = await issuer.mint({ nbf: now() + SKEW + 60 });
      await expect(verifierWith().verify(token)).rejects.toMatchObject(refusedWith('the token is not valid yet'));
    });

    it('a token issued in the future (iat beyond the clock skew)', async () => {
      const token = await issuer.mint({ iat: now() + SKEW + 60 });
      await expect(verifierWith().verify(token)).rejects.toMatchObject(
        refusedWith('the token was issued in the future'),
      );
    });

    it('a token older than the maximum token age, whatever its exp', async () => {
      const token = await issuer.mint({ iat: now() - MAX_TOKEN_AGE - SKEW - 60, exp: now() + 300 });
      await expect(verifierWith().verify(token)).rejects.toMatchObject(refusedWith('the token is too old'));
    });

    it('a token of another issuer', async () => {
      const token = await issuer.mint({ iss: 'https://elsewhere.example.test/realms/federation' });
      await expect(verifierWith().verify(token)).rejects.toMatchObject(
        refusedWith('the token was issued by another issuer'),
      );
    });

    it('a token signed by an unknown key with 401', async () => {
      const stray = await issuer.unpublishedKey();
      const token = await issuer.mint({}, { key: stray });
      await expect(verifierWith().verify(token)).rejects.toMatchObject(
        refusedWith('the token was signed by an unknown key'),
      );
    });

    it('a token signed by another key under a published kid', async () => {
      const stray = await issuer.unpublishedKey();
      const token = await issuer.mint({}, { key: stray, header: { kid: issuer.currentKey.kid } });
      await expect(verifierWith().verify(token)).rejects.toMatchObject(refusedWith('the token signature is invalid'));
    });

    it('a token whose payload was tampered with', async () => {
      const [header, , signature] = (await issuer.mint()).split('.');
      const widened = base64url(issuer.claims({ scope: 'openid chat:exec users:manage master:manage' }));
      await expect(verifierWith().verify(`${header}.${widened}.${signature}`)).rejects.toMatchObject(
        refusedWith('the token signature is invalid'),
      );
    });

    it('an unsecured token (alg none)', async () => {
      const token = await issuer.signer.unsecured(issuer.claims());
      expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString())).toEqual({ alg: 'none' });
      await expect(verifierWith().verify(token)).rejects.toMatchObject(refusedWith('malformed token'));
      const withSignature = `${token}c2ln`;
      await expect(verifierWith().verify(withSignature)).rejects.toMatchObject(
        refusedWith('the signing algorithm is not allowed'),
      );
    });

    it('an HS256 token keyed with the public key bytes (algorithm confusion)', async () => {
      const verifier = verifierWith();
      await verifier.verify(await issuer.mint()); // the key set is loaded and holds the RSA key
      const { kid, publicJwk } = issuer.currentKey;
      const publicPem = createPublicKey({ key: publicJwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
      for (const secret of [String(publicPem), JSON.stringify(publicJwk)]) {
        const token = await issuer.signer.signWithSecret(secret, { alg: 'HS256', kid }, issuer.claims());
        await expect(verifier.verify(token)).rejects.toMatchObject(refusedWith('the signing algorithm is not allowed'));
      }
    });

    it.each(['RS512', 'PS256', 'ES256', 'EdDSA', 'rs256'])('a token whose header names %s', async (alg) => {
      const [, payload, signature] = (await issuer.mint()).split('.');
      const header = base64url({ alg, typ: 'JWT', kid: issuer.currentKey.kid });
      await expect(verifierWith().verify(`${header}.${payload}.${signature}`)).rejects.toMatchObject(
        refusedWith('the signing algorithm is not allowed'),
      );
    });

    it('a token without kid', async () => {
      const token = await issuer.mint({}, { header: { kid: undefined } });
      await expect(verifierWith().verify(token)).rejects.toMatchObject(refusedWith('the token has no key id'));
    });

    it('a token with a critical header extension', async () => {
      const [, payload, signature] = (await issuer.mint()).split('.');
      const header = base64url({ alg: 'RS256', kid: issuer.currentKey.kid, crit: ['exp'], exp: 1 });
      await expect(verifierWith().verify(`${header}.${payload}.${signature}`)).rejects.toMatchObject(
        refusedWith('unsupported token header'),
      );
    });

    it('an ID token (typ ID)', async () => {
      const token = await issuer.mint({ typ: 'ID', aud: 'test-client', nonce: 'n-0S6_WzA2Mj' });
      await expect(verifierWith().verify(token)).rejects.toMatchObject(refusedWith('the token is not an access token'));
    });

    it('a refresh token (typ Refresh)', async () => {
      const token = await issuer.mint({ typ: 'Refresh' });
      await expect(verifierWith().verify(token)).rejects.toMatchObject(refusedWith('the token is not an access token'));
    });

    it('a token meant for another audience', async () => {
      const token = await issuer.mint({ aud: ['test-client', 'account'] });
      await expect(verifierWith().verify(token)).rejects.toMatchObject(
        refusedWith('the token is meant for another audience'),
      );
    });

    it('a token without typ', async () => {
      const token = await issuer.mint({}, { omit: ['typ'] });
      await expect(verifierWith().verify(token)).rejects.toMatchObject(refusedWith('the token is not an access token'));
    });

    it('an Authorization Code token without aud (only Client Credentials tokens have none)', async () => {
      const token = await issuer.mint({}, { omit: ['aud'] });
      await expect(verifierWith().verify(token)).rejects.toMatchObject(
        refusedWith('the token is meant for another audience'),
      );
    });

    it('a token without aud that names a service account but lacks the M2M role', async () => {
      const token = await issuer.mint(
        { preferred_username: 'service-account-ci@clients.federation.invalid' },
        { omit: ['aud', 'sid', 'auth_time'] },
      );
      await expect(verifierWith().verify(token)).rejects.toMatchObject(
        refusedWith('the token is meant for another audience'),
      );
    });

    it.each([
      ['sub', 'the token has no subject'],
      ['exp', 'the token has no "exp" claim'],
      ['iat', 'the token has no "iat" claim'],
      ['jti', 'the token has no id'],
    ])('a token without %s', async (claim, message) => {
      const token = await issuer.mint({}, { omit: [claim] });
      await expect(verifierWith().verify(token)).rejects.toMatchObject(refusedWith(message));
    });

    it.each([
      ['scope', ['chat:exec']],
      ['exp', '2030-01-01'],
      ['realm_access', { roles: 'admin' }],
      ['tenant', { id: TEST_TENANT_ID, type: 'galaxy', endpoint: 'https://x.example.test' }],
      // Tenants are keyed by UUID: such an id would otherwise reach a tenant-scoped query (admin approve).
      ['tenant', { id: 'tenant-1', type: 'saas', endpoint: 'https://x.example.test' }],
      ['tenant', { id: `${TEST_TENANT_ID}'--`, type: 'saas', endpoint: 'https://x.example.test' }],
      ['tenant', { id: 42, type: 'saas', endpoint: 'https://x.example.test' }],
      ['tenant', { type: 'saas', endpoint: 'https://x.example.test' }],
      ['tenant', { id: TEST_TENANT_ID, type: 'saas', endpoint: 7 }],
      ['tenant', [TEST_TENANT_ID]],
      ['tenant', TEST_TENANT_ID],
      ['tenant', null],
      ['sub', 42],
      ['sub', { id: 'x' }],
      ['jti', 7],
      ['iat', '1700000000'],
      ['nbf', true],
      ['auth_time', 'yesterday'],
      ['azp', { client: 'web' }],
      ['sid', 5],
      ['aud', ['broker', 5]],
      ['aud', { broker: true }],
      ['realm_access', ['admin']],
      ['realm_access', { roles: ['admin', 1] }],
    ])('a token whose %s claim is malformed (%j)', async (claim, value) => {
      const token = await issuer.mint({ [claim]: value });
      await expect(verifierWith().verify(token)).rejects.toMatchObject(
        refusedWith(`the "${claim}" claim is malformed`),
      );
    });

    it.each(['', 'abc', 'a.b', 'a.b.c.d', 'a.b!.c', `${base64url([1])}.${base64url({})}.c2ln`])(
      'a malformed token %j',
      async (token) => {
        await expect(verifierWith().verify(token)).rejects.toMatchObject(refusedWith('malformed token'));
      },
    );
  });

  describe('the JWKS', () => {
    it('is fetched once for any number of tokens signed by known keys', async () => {
      const verifier = verifierWith();
      const before = jwks.requests;
      for (let i = 0; i < 5; i++) await verifier.verify(await issuer.mint());
      expect(jwks.requests - before).toBe(1);
    });

    it('picks up a rotated key: a new kid is fetched after the old set was cached', async () => {
      const verifier = verifierWith({ keys: { refetchCooldownMs: 0 } });
      const oldToken = await issuer.mint();
      await verifier.verify(oldToken);
      const before = jwks.requests;

      await issuer.rotate();
      const newClaims = issuer.claims();
      const newToken = await issuer.mint(newClaims);

      await expect(verifier.verify(newToken)).resolves.toMatchObject({ tokenId: newClaims.jti });
      expect(jwks.requests - before).toBe(1);
      await expect(verifier.verify(oldToken)).resolves.toBeDefined();
    });

    it('lets concurrent requests at a cold start share one fetch, and all pass', async () => {
      const verifier = verifierWith({ keys: { refetchCooldownMs: 60_000 } });
      const tokens = await Promise.all(Array.from({ length: 10 }, () => issuer.mint()));
      const before = jwks.requests;

      const principals = await Promise.all(tokens.map((token) => verifier.verify(token)));

      expect(new Set(principals.map((principal) => principal.tokenId)).size).toBe(10);
      expect(jwks.requests - before).toBe(1);
    });

    it('lets concurrent requests signed by a rotated key share one fetch, and all pass', async () => {
      const cooldownMs = 200;
      const verifier = verifierWith({ keys: { refetchCooldownMs: cooldownMs } });
      await verifier.verify(await issuer.mint());
      await issuer.rotate();
      const tokens = await Promise.all(Array.from({ length: 10 }, () => issuer.mint()));
      await new Promise((resolve) => setTimeout(resolve, cooldownMs + 50));
      const before = jwks.requests;

      const principals = await Promise.all(tokens.map((token) => verifier.verify(token)));

      expect(new Set(principals.map((principal) => principal.tokenId)).size).toBe(10);
      expect(jwks.requests - before).toBe(1);
    });

    it('stops accepting tokens of a key withdrawn from the JWKS, even cached ones', async () => {
      const verifier = verifierWith({ keys: { refetchCooldownMs: 0 } });
      const withdrawn = issuer.currentKey;
      const token = await issuer.mint();
      await verifier.verify(token);

      await issuer.rotate();
      issuer.retire(withdrawn.kid);
      await verifier.verify(await issuer.mint()); // the unknown kid makes the verifier refetch

      await expect(verifier.verify(token)).rejects.toMatchObject(refusedWith('the token was signed by an unknown key'));
    });

    it('is fetched once, not once per token, when many unknown kids arrive together', async () => {
      const verifier = verifierWith({ keys: { refetchCooldownMs: 60_000 } });
      const stray = await issuer.unpublishedKey();
      const bogus = await Promise.all(
        Array.from({ length: 20 }, (_, i) => issuer.mint({}, { key: stray, header: { kid: `bogus-${i}` } })),
      );
      const before = jwks.requests;

      await Promise.all(bogus.map((token) => expect(verifier.verify(token)).rejects.toMatchObject({ status: 401 })));
      expect(jwks.requests - before).toBe(1);
    });

    it('is not fetched more than once per cooldown however many bogus kids arrive', async () => {
      const verifier = verifierWith({ keys: { refetchCooldownMs: 60_000 } });
      const stray = await issuer.unpublishedKey();
      const bogus = await Promise.all(
        Array.from({ length: 20 }, (_, i) => issuer.mint({}, { key: stray, header: { kid: `bogus-${i}` } })),
      );
      await verifier.verify(await issuer.mint());
      const before = jwks.requests;

      await Promise.all(bogus.map((token) => expect(verifier.verify(token)).rejects.toMatchObject({ status: 401 })));
      for (const token of bogus) {
        await expect(verifier.verify(token)).rejects.toMatchObject(
          refusedWith('the token was signed by an unknown key'),
        );
      }
      expect(jwks.requests - before).toBe(0);
      await expect(verifier.verify(await issuer.mint())).resolves.toBeDefined();
    });

    it('is fetched again for an unknown kid once the cooldown has passed', async () => {
      const cooldownMs = 200;
      const verifier = verifierWith({ keys: { refetchCooldownMs: cooldownMs } });
      await verifier.verify(await issuer.mint());
      const bogus = await issuer.mint({}, { key: await issuer.unpublishedKey() });
      await new Promise((resolve) => setTimeout(resolve, cooldownMs + 50));
      const before = jwks.requests;

      await expect(verifier.verify(bogus)).rejects.toMatchObject({ status: 401 });
      expect(jwks.requests - before).toBe(1);
    });

    it('when the endpoint is down gives 401, never a pass', async () => {
      jwks.down = true;
      try {
        const verifier = verifierWith({ keys: { refetchCooldownMs: 0 } });
        const before = jwks.requests;
        await expect(verifier.verify(await issuer.mint())).rejects.toMatchObject(
          refusedWith('the signing keys are unavailable'),
        );
        expect(jwks.requests - before).toBe(1);
      } finally {
        jwks.down = false;
      }
    });

    it('when the endpoint is unreachable gives 401, never a pass', async () => {
      const gone = await JwksServer.start(() => issuer.jwks());
      await gone.close();
      const verifier = new AccessTokenVerifier(
        { issuer: issuer.issuer, clockSkewSeconds: SKEW, maxTokenAgeSeconds: MAX_TOKEN_AGE },
        new JwksKeySet({ url: gone.url, timeoutMs: 1000 }),
        new RevocationList({ clockSkewSeconds: SKEW, maxTokenAgeSeconds: MAX_TOKEN_AGE }),
      );
      await expect(verifier.verify(await issuer.mint())).rejects.toMatchObject(
        refusedWith('the signing keys are unavailable'),
      );
    });

    it('down during a rotation refuses the new kid and keeps accepting the known one', async () => {
      const verifier = verifierWith({ keys: { refetchCooldownMs: 0 } });
      const knownKey = issuer.currentKey;
      await verifier.verify(await issuer.mint());
      await issuer.rotate();
      jwks.down = true;
      try {
        await expect(verifier.verify(await issuer.mint())).rejects.toMatchObject(
          refusedWith('the signing keys are unavailable'),
        );
        await expect(verifier.verify(await issuer.mint({}, { key: knownKey }))).resolves.toBeDefined();
      } finally {
        jwks.down = false;
      }
    });
  });

  describe('the result cache', () => {
    it('remembers a verified token and still consults the revocation list on every use', async () => {
      const cache = new VerificationCache(100);
      const revocations = new RevocationList({ clockSkewSeconds: SKEW, maxTokenAgeSeconds: MAX_TOKEN_AGE });
      const verifier = verifierWith({ cache, revocations });
      const token = await issuer.mint();
      const first = await verifier.verify(token);
      expect(cache.size).toBe(1);
      expect(await verifier.verify(token)).toBe(first);

      revocations.revokeToken(first.tokenId, first.expiresAt);
      await expect(verifier.verify(token)).rejects.toMatchObject(refusedWith('the token has been revoked'));
    });

    it('does not serve a token past its exp', async () => {
      const verifier = new AccessTokenVerifier(
        { issuer: issuer.issuer, clockSkewSeconds: 0, maxTokenAgeSeconds: MAX_TOKEN_AGE },
        new JwksKeySet({ url: jwks.url }),
        new RevocationList({ clockSkewSeconds: 0, maxTokenAgeSeconds: MAX_TOKEN_AGE }),
      );
      const exp = now() + 2;
      const token = await issuer.mint({ exp });
      await verifier.verify(token);
      await new Promise((resolve) => setTimeout(resolve, exp * 1000 - Date.now() + 20));
      await expect(verifier.verify(token)).rejects.toMatchObject(refusedWith('the token has expired'));
    });
  });
});
