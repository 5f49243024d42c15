import 'reflect-metadata';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService } from '@fed/server';
import { TestBrowser } from '@fed/testing';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { bootAuthService, createApprovedUser, registryOf } from '../testing/boot-auth-service';
import { ScopeProbeModule } from '../testing/scope-probe.module';

const REDIRECT_URI = 'https://agent.example.com/callback';
const PASSWORD = 'correct horse battery staple';

/**
 * What an OAuth client that is not an OpenID one does (issue 35, the MCP authorization spec 2025-11-25):
 * no `openid`, `offline_access`, and RFC 8707 resource indicators at authorize and at every grant of the
 * token endpoint, through openid-client as the client.
 */
describe('OAuth clients: scopes without openid, offline_access and resource indicators (RFC 8707)', () => {
  let database: TestDatabase;
  let service: RunningService;
  let mcpUrl: string;
  let a2aUrl: string;
  const secrets: Record<string, string> = {};

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await bootAuthService({ databaseUrl: database.url, features: [ScopeProbeModule] });
    mcpUrl = `${service.config.http.publicUrl}/api/v1/mcp`;
    a2aUrl = `${service.config.http.publicUrl}/api/v1/a2a`;
    const { clients, users } = registryOf(service);
    for (const [clientId, consentRequired] of [
      ['agent', false],
      ['asking', true],
    ] as const) {
      const issued = await clients.create({
        clientId,
        name: `${clientId} app`,
        grantTypes: ['authorization_code', 'refresh_token'],
        scopes: ['openid', 'profile', 'chat:exec', 'mcp:all', 'a2a:all'],
        redirectUris: [REDIRECT_URI],
        consentRequired,
      });
      secrets[clientId] = issued.clientSecret;
    }
    const once = await clients.create({
      clientId: 'once',
      name: 'once app',
      grantTypes: ['authorization_code'],
      scopes: ['mcp:all'],
      redirectUris: [REDIRECT_URI],
      consentRequired: false,
    });
    secrets.once = once.clientSecret;
    const m2m = await clients.create({
      clientId: 'robot',
      name: 'robot',
      grantTypes: ['client_credentials'],
      scopes: ['mcp:all'],
    });
    secrets.robot = m2m.clientSecret;
    await createApprovedUser(users, 'frank', { password: PASSWORD, role: 'user' });
  });

  afterAll(async () => {
    await service?.shutdown('test');
    await database?.drop();
  });

  async function client(clientId: string): Promise<oidc.Configuration> {
    return oidc.discovery(
      new URL(service.config.auth.issuer),
      clientId,
      undefined,
      oidc.ClientSecretPost(secrets[clientId]),
      {
        execute: [oidc.allowInsecureRequests],
      },
    );
  }

  interface Request {
    clientId?: string;
    scope: string;
    resource?: string;
    prompt?: string;
  }

  /** Signs frank in through the forms; the callback URL, the PKCE verifier, and the pages seen. */
  async function authorize(request: Request) {
    const config = await client(request.clientId ?? 'agent');
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: request.scope,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      ui_locales: 'en',
      ...(request.resource !== undefined ? { resource: request.resource } : {}),
      ...(request.prompt !== undefined ? { prompt: request.prompt } : {}),
    });
    const browser = new TestBrowser(service.url);
    let page = await browser.visit(url.href);
    page = await browser.submit(page, { login: 'frank', password: PASSWORD });
    const pages = [page.html];
    if (page.html.includes('name="decision"')) page = await browser.submit(page, { decision: 'allow' });
    return { config, callback: new URL(page.location as string), verifier, state, pages };
  }

  async function signIn(request: Request, tokenParameters: Record<string, string> = {}) {
    const flow = await authorize(request);
    const tokens = await oidc.authorizationCodeGrant(
      flow.config,
      flow.callback,
      { pkceCodeVerifier: flow.verifier, expectedState: flow.state, idTokenExpected: false },
      tokenParameters,
    );
    return { ...flow, tokens };
  }

  const probe = (token: string) =>
    fetch(`${service.url}/probe/chat`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);

  /** A token request over plain HTTP, to see the error body as sent. */
  const tokenRequest = async (form: Record<string, string>) => {
    const response = await fetch(`${service.url}/federation/auth/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  describe('without openid', () => {
    it('authorizes scope=mcp:all alone and answers the code with access and refresh tokens, no ID token', async () => {
      const { tokens, config } = await signIn({ scope: 'mcp:all' });
      expect(tokens.id_token).toBeUndefined();
      expect(tokens.refresh_token).toEqual(expect.any(String));
      expect(tokens.scope).toBe('mcp:all');
      expect(decodeJwt(tokens.access_token)).toMatchObject({ aud: 'broker', scope: 'mcp:all', typ: 'Bearer' });
      const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
      expect(refreshed.id_token).toBeUndefined();
      expect(refreshed.scope).toBe('mcp:all');
    });

    it('still issues an ID token when openid is asked for', async () => {
      const { tokens } = await signIn({ scope: 'openid mcp:all' });
      expect(decodeJwt(tokens.id_token as string)).toMatchObject({ typ: 'ID', aud: 'agent' });
    });
  });

  describe('offline_access', () => {
    it('is granted and echoed, with prompt=consent (as the MCP SDK asks) and without', async () => {
      const asked = await signIn({ scope: 'mcp:all offline_access', prompt: 'consent' });
      expect(asked.pages.some((html) => html.includes('<code>offline_access</code>'))).toBe(true);
      expect(asked.tokens.scope?.split(' ').sort()).toEqual(['mcp:all', 'offline_access']);
      expect(asked.tokens.refresh_token).toEqual(expect.any(String));

      const quiet = await signIn({ scope: 'openid offline_access mcp:all' });
      expect(quiet.pages.some((html) => html.includes('name="decision"'))).toBe(false);
      expect(quiet.tokens.scope?.split(' ').sort()).toEqual(['mcp:all', 'offline_access', 'openid']);
      expect(decodeJwt(quiet.tokens.access_token).scope).toBe(quiet.tokens.scope);
      const refreshed = await oidc.refreshTokenGrant(quiet.config, quiet.tokens.refresh_token as string);
      expect(refreshed.scope).toBe(quiet.tokens.scope);
      // The provider's own name for it never reaches the client.
      expect(JSON.stringify([asked.tokens, quiet.tokens, refreshed])).not.toContain('fed:');
    });

    it('is shown on the consent page with the scopes asked for, in the page language', async () => {
      const { pages } = await signIn({ clientId: 'asking', scope: 'offline_access mcp:all' });
      const consent = pages.find((html) => html.includes('name="decision"')) as string;
      expect(consent).toContain(
        'Offline access: stay connected while you are away (a refresh token) (<code>offline_access</code>)',
      );
      expect(consent).not.toContain('fed:offline_access');
    });

    it('is left out for a client that may not refresh (no refresh token to stand for)', async () => {
      const { tokens } = await signIn({ clientId: 'once', scope: 'mcp:all offline_access' });
      expect(tokens.scope).toBe('mcp:all');
    });

    it("is not a scope the provider's internal name can ask for", async () => {
      const config = await client('agent');
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT_URI,
        scope: 'mcp:all fed:offline_access',
        code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
        code_challenge_method: 'S256',
        state: 'st',
      });
      const location = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location') as string);
      expect(location.searchParams.get('error')).toBe('invalid_scope');
    });
  });

  describe('resource at the authorization request', () => {
    it('binds the tokens to the resource: aud is its URL, at the code exchange and every refresh', async () => {
      const { tokens, config } = await signIn({ scope: 'mcp:all', resource: mcpUrl }, { resource: mcpUrl });
      expect(decodeJwt(tokens.access_token)).toMatchObject({ aud: mcpUrl, scope: 'mcp:all' });
      // A resource-bound token is refused by a route of no resource (the chat API's scope probe).
      expect(await probe(tokens.access_token)).toBe(401);

      const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
      expect(decodeJwt(refreshed.access_token).aud).toBe(mcpUrl);
      const again = await oidc.refreshTokenGrant(config, refreshed.refresh_token as string, { resource: mcpUrl });
      expect(decodeJwt(again.access_token).aud).toBe(mcpUrl);
      await expect(
        oidc.refreshTokenGrant(config, again.refresh_token as string, { resource: a2aUrl }),
      ).rejects.toMatchObject({ error: 'invalid_target', status: 400 });
      // The refused refresh used nothing up.
      const last = await oidc.refreshTokenGrant(config, again.refresh_token as string);
      expect(decodeJwt(last.access_token).aud).toBe(mcpUrl);
    });

    it('takes the A2A endpoint as a resource too, and the code exchange may leave resource out', async () => {
      const { tokens } = await signIn({ scope: 'a2a:all', resource: a2aUrl });
      expect(decodeJwt(tokens.access_token).aud).toBe(a2aUrl);
    });

    it('keeps the tokens of a request without resource for broker, and refuses a refresh naming one', async () => {
      const { tokens, config } = await signIn({ scope: 'chat:exec' });
      expect(decodeJwt(tokens.access_token).aud).toBe('broker');
      expect(await probe(tokens.access_token)).toBe(200);
      await expect(
        oidc.refreshTokenGrant(config, tokens.refresh_token as string, { resource: mcpUrl }),
      ).rejects.toMatchObject({ error: 'invalid_target', status: 400 });
    });

    it('400 invalid_target at the code exchange for another resource than the request named, without using the code', async () => {
      const flow = await authorize({ scope: 'mcp:all', resource: mcpUrl });
      const code = flow.callback.searchParams.get('code') as string;
      const exchange = (resource?: string) =>
        tokenRequest({
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT_URI,
          client_id: 'agent',
          client_secret: secrets.agent,
          code_verifier: flow.verifier,
          ...(resource !== undefined ? { resource } : {}),
        });
      for (const resource of [a2aUrl, `${mcpUrl}/`, 'https://elsewhere.example.com/api/v1/mcp']) {
        expect(await exchange(resource)).toEqual({
          status: 400,
          body: {
            error: 'invalid_target',
            error_description: 'resource is not the one the authorization request was issued for',
          },
        });
      }
      const granted = await exchange(mcpUrl);
      expect(granted.status).toBe(200);
      expect(decodeJwt(granted.body.access_token as string).aud).toBe(mcpUrl);
    });

    it('400 invalid_target at the code exchange naming a resource when the request named none', async () => {
      const flow = await authorize({ scope: 'mcp:all' });
      const answer = await tokenRequest({
        grant_type: 'authorization_code',
        code: flow.callback.searchParams.get('code') as string,
        redirect_uri: REDIRECT_URI,
        client_id: 'agent',
        client_secret: secrets.agent,
        code_verifier: flow.verifier,
        resource: mcpUrl,
      });
      expect(answer).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
    });

    it('refuses an unknown resource, or two, with invalid_target by redirect; one repeated is one', async () => {
      const config = await client('agent');
      const challenge = await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier());
      const answer = async (resources: string[]) => {
        const url = oidc.buildAuthorizationUrl(config, {
          redirect_uri: REDIRECT_URI,
          scope: 'mcp:all',
          code_challenge: challenge,
          code_challenge_method: 'S256',
          state: 'st',
        });
        for (const resource of resources) url.searchParams.append('resource', resource);
        const response = await fetch(url, { redirect: 'manual' });
        const location = new URL(response.headers.get('location') as string);
        return {
          status: response.status,
          target: location.origin + location.pathname,
          ...Object.fromEntries(location.searchParams),
        };
      };
      for (const resources of [
        ['https://elsewhere.example.com/api/v1/mcp'],
        [`${mcpUrl}/`],
        [`${mcpUrl}#fragment`],
        ['not a uri'],
        [mcpUrl, a2aUrl],
      ]) {
        expect(await answer(resources)).toMatchObject({
          status: 302,
          target: REDIRECT_URI,
          error: 'invalid_target',
          state: 'st',
          error_description: expect.any(String),
        });
      }
      // The same resource twice is one resource: the request goes on to the login page.
      const repeated = await fetch(
        `${
          oidc.buildAuthorizationUrl(config, {
            redirect_uri: REDIRECT_URI,
            scope: 'mcp:all',
            code_challenge: challenge,
            code_challenge_method: 'S256',
            resource: mcpUrl,
          }).href
        }&resource=${encodeURIComponent(mcpUrl)}`,
        { redirect: 'manual' },
      );
      expect(repeated.status).toBe(303);
      expect(repeated.headers.get('location')).toContain('/federation/auth/v1/interaction/');
    });
  });

  describe('resource at client credentials', () => {
    const robot = () => {
      const config = new oidc.Configuration(
        { issuer: service.config.auth.issuer, token_endpoint: `${service.url}/federation/auth/v1/token` },
        'robot',
        secrets.robot,
      );
      oidc.allowInsecureRequests(config);
      return config;
    };

    it('binds the service account token to a known resource; none: no audience, as before', async () => {
      const bound = await oidc.clientCredentialsGrant(robot(), { resource: mcpUrl });
      expect(decodeJwt(bound.access_token)).toMatchObject({ aud: mcpUrl, scope: 'mcp:all', azp: 'robot' });
      const plain = await oidc.clientCredentialsGrant(robot());
      expect(decodeJwt(plain.access_token)).not.toHaveProperty('aud');
    });

    it('400 invalid_target for a resource this server does not serve', async () => {
      for (const resource of ['https://elsewhere.example.com/api/v1/mcp', `${mcpUrl}/`, 'urn:example']) {
        expect(
          await tokenRequest({
            grant_type: 'client_credentials',
            client_id: 'robot',
            client_secret: secrets.robot,
            resource,
          }),
        ).toEqual({
          status: 400,
          body: { error: 'invalid_target', error_description: 'resource is not a resource of this server' },
        });
      }
    });
  });

  describe('the consent page', () => {
    // (This user agreed to mcp:all and offline_access of this application above.)
    it('lists the scopes the request asks for, not every scope of the application', async () => {
      const { pages, tokens } = await signIn({ clientId: 'asking', scope: 'a2a:all' });
      const consent = pages.find((html) => html.includes('name="decision"')) as string;
      expect(consent).toContain('<code>a2a:all</code>');
      for (const scope of ['openid', 'profile', 'chat:exec', 'mcp:all'])
        expect(consent).not.toContain(`<code>${scope}</code>`);
      expect(tokens.scope).toBe('a2a:all');
    });
  });
});
