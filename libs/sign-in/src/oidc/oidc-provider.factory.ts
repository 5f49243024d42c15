import { ALWAYS_ALLOWED_SCOPES, scopes as supportedScopes } from '@fed/contracts';
import { generateKeyPair, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import type { Adapter, AdapterPayload, Grant, KoaContextWithOIDC, default as Provider } from 'oidc-provider';
import {
  type ClientEntity,
  type ClientRepository,
  INTERACTION_PATH,
  isClientIdShaped,
  isPublicClient,
  OIDC_BASE_PATH,
  type UserRepository,
} from '@fed/identity/internal';
import { type ConsentRepository } from '../consents/consent.repository';
import { type ArtifactStore } from './artifacts/artifact-store';
import { type ClientCache } from './client-cache';
import { type SessionSettings } from './grants/user-grants';
import { PROVIDER_OFFLINE_ACCESS, fromProviderScope } from './offline-access';
import { providerErrorPage } from './interactions/pages';
import { type ScopeHolder, scopesHeldBy, scopesWithheldFrom } from './role-scopes';

export { INTERACTION_PATH, OIDC_BASE_PATH };

const generateRsaKeyPair = promisify(generateKeyPair);
const AUTHORIZATION_CODE_TTL_SECONDS = 60;
const INTERACTION_TTL_SECONDS = 900;

export interface OidcProviderSettings {
  issuer: string;
  session: SessionSettings;
  /** Signs the provider's cookies (session, interaction). */
  cookieKey: Buffer;
  /** Proxies in front whose `X-Forwarded-*` headers are trusted (`TRUST_PROXY_HOPS`); 0: none. */
  trustProxyHops: number;
  /** The resource indicators (RFC 8707) an authorization request may name: protectedResourceUrls(). */
  resources: readonly string[];
  /** Errors the provider answers as `server_error` (it hides them from the client). */
  onServerError: (error: unknown, route: string | undefined) => void;
}

export interface OidcProviderDependencies {
  clients: ClientRepository;
  /** The same one-second client cache the token endpoint reads (authorize requests come in bursts too). */
  clientCache: ClientCache;
  users: UserRepository;
  consents: ConsentRepository;
  artifacts: ArtifactStore;
}

function clientMetadata(client: ClientEntity): AdapterPayload {
  // The provider serves only the browser side, so it knows a client's code flow and nothing else.
  const codeFlow = client.grantTypes.includes('authorization_code');
  return {
    client_id: client.clientId,
    // The provider authenticates no client (the token endpoint is ours) but wants a secret on record.
    ...(client.secretHash ? { client_secret: client.secretHash.toString('hex') } : {}),
    grant_types: codeFlow ? ['authorization_code'] : [],
    redirect_uris: client.redirectUris,
    response_types: codeFlow ? ['code'] : [],
    token_endpoint_auth_method: isPublicClient(client) ? 'none' : 'client_secret_basic',
    id_token_signed_response_alg: 'RS256',
    // The provider refuses at the authorization endpoint a scope the client was not given.
    scope: [...new Set([...ALWAYS_ALLOWED_SCOPES, PROVIDER_OFFLINE_ACCESS, ...client.scopes])].join(' '),
  };
}

function adapterFor(clients: ClientCache, artifacts: ArtifactStore) {
  return class Storage implements Adapter {
    constructor(private readonly model: string) {}

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.model === 'Client') {
        // A URL-shaped id is a metadata document's: the cache fetches it on first use.
        const client = isClientIdShaped(id) ? await clients.find(id) : null;
        return client?.enabled ? clientMetadata(client) : undefined;
      }
      return id.length <= 256 ? artifacts.find(this.model, id) : undefined;
    }
    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      await artifacts.upsert(this.model, id, payload, expiresIn);
    }
    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return uid.length <= 256 ? artifacts.findByUid(this.model, uid) : undefined;
    }
    async findByUserCode(): Promise<undefined> {
      return undefined;
    }
    async consume(id: string): Promise<void> {
      await artifacts.consume(this.model, id);
    }
    async destroy(id: string): Promise<void> {
      await artifacts.destroy(this.model, id);
    }
    async revokeByGrantId(grantId: string): Promise<void> {
      await artifacts.revokeByGrantId(grantId);
    }
  };
}

/**
 * A rejected scope counts as answered, so a request naming it skips the consent screen and the code omits it.
 * A rejection of an earlier role is lifted.
 */
export function grantScopesOfRole(grant: Grant, user: ScopeHolder, clientScopes: readonly string[]): void {
  grant.rejected = undefined;
  grant.addOIDCScope(
    [...ALWAYS_ALLOWED_SCOPES, PROVIDER_OFFLINE_ACCESS, ...scopesHeldBy(user, clientScopes)].join(' '),
  );
  const withheld = scopesWithheldFrom(user, clientScopes);
  if (withheld.length > 0) grant.rejectOIDCScope(withheld.join(' '));
}

/**
 * Management scopes only for an admin (`platform:manage` for an admin who is a platform operator); `openid` and
 * `offline_access` included, in the request's order.
 */
export function scopesToConsent(requested: unknown, user: ScopeHolder, clientScopes: readonly string[]): string[] {
  const names = fromProviderScope(typeof requested === 'string' ? requested.split(' ').filter(Boolean) : []);
  const held = new Set([...ALWAYS_ALLOWED_SCOPES, ...scopesHeldBy(user, clientScopes)]);
  return [...new Set(names.filter((name) => held.has(name)))];
}

/**
 * Consent is asked on first use (when the screen is enabled) and again once the request asks for a scope the
 * user may hold but has not agreed to (a promotion adds management scopes); otherwise no screen.
 */
function loadExistingGrant(clients: ClientRepository, consents: ConsentRepository, users: UserRepository) {
  return async (ctx: KoaContextWithOIDC) => {
    const { provider, session, client: oidcClient } = ctx.oidc;
    const accountId = session?.accountId;
    if (!oidcClient || !accountId) return undefined;
    const client = await clients.find(oidcClient.clientId);
    if (!client) return undefined;
    const decided = ctx.oidc.result?.consent?.grantId as string | undefined;
    const existingId = decided ?? session.grantIdFor(client.clientId);
    const existing = existingId ? await provider.Grant.find(existingId) : undefined;
    if (decided && existing) return existing;
    const user = await users.find(accountId);
    if (!user) return undefined;
    const asked = scopesToConsent(ctx.oidc.params?.scope, user, client.scopes).filter(
      (name) => !ALWAYS_ALLOWED_SCOPES.includes(name),
    );
    if (client.consentRequired && !(await consents.covers(accountId, client.clientId, asked))) return undefined;
    // Self-registered clients are asked about every time: nobody the user trusts vouches for them.
    if (client.registration !== 'operator') return undefined;
    const grant =
      existing && existing.accountId === accountId
        ? existing
        : new provider.Grant({ accountId, clientId: client.clientId });
    grantScopesOfRole(grant, user, client.scopes);
    await grant.save();
    return grant;
  };
}

/**
 * oidc-provider stamps logins in whole seconds, which cannot order a sign-in against a session cut-off in the same
 * second; we stamp to the millisecond (tokens' `auth_time` stays whole, `auth_time_ms` carries the rest).
 */
function stampLoginsToTheMillisecond(provider: Provider): void {
  const loginAccount = provider.Session.prototype.loginAccount;
  provider.Session.prototype.loginAccount = function (details) {
    loginAccount.call(this, { ...details, loginTs: details.loginTs ?? Date.now() / 1000 });
  };
}

function serverErrorRedirect(
  ctx: KoaContextWithOIDC,
  out: { error?: string; error_description?: string; state?: string },
  issuer: string,
): string | undefined {
  const { client, params, route } = ctx.oidc ?? {};
  const redirectUri = params?.redirect_uri;
  if (out.error !== 'server_error' || (route !== 'authorization' && route !== 'resume')) return undefined;
  if (!client || typeof redirectUri !== 'string' || !client.redirectUris?.includes(redirectUri)) return undefined;
  const target = new URL(redirectUri);
  target.searchParams.set('error', 'server_error');
  target.searchParams.set('error_description', out.error_description ?? 'the request could not be completed');
  if (typeof params?.state === 'string') target.searchParams.set('state', params.state);
  target.searchParams.set('iss', issuer);
  return target.href;
}

/**
 * The provider insists on a signing key though every token is ours: a throwaway key, never in the JWKS, so
 * anything it might sign is refused by every verifier.
 */
async function unpublishedSigningJwk(): Promise<Record<string, unknown>> {
  const { privateKey } = await generateRsaKeyPair('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid: `unpublished-${randomUUID()}`, alg: 'RS256', use: 'sig' };
}

/** Loaded lazily, not by every importer of this lib (platformctl). */
export async function createOidcProvider(
  deps: OidcProviderDependencies,
  settings: OidcProviderSettings,
): Promise<Provider> {
  const { default: Provider, errors } = await import('oidc-provider');
  const { clients, users, consents, artifacts } = deps;
  const httpsIssuer = new URL(settings.issuer).protocol === 'https:';
  const cookieFlags = { httpOnly: true, sameSite: 'lax', secure: httpsIssuer } as const;
  const provider = new Provider(settings.issuer, {
    jwks: { keys: [await unpublishedSigningJwk()] },
    adapter: adapterFor(deps.clientCache, artifacts),
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    responseTypes: ['code'],
    // A tenant name: the login page sends the browser straight to that tenant's identity provider.
    extraParams: ['idp_hint'],
    scopes: [...new Set([...supportedScopes, ...ALWAYS_ALLOWED_SCOPES, PROVIDER_OFFLINE_ACCESS])],
    pkce: { required: () => false },
    allowOmittingSingleRegisteredRedirectUri: false,
    cookies: {
      keys: [settings.cookieKey.toString('base64url')],
      long: cookieFlags,
      short: cookieFlags,
    },
    ttl: {
      AuthorizationCode: AUTHORIZATION_CODE_TTL_SECONDS,
      Interaction: INTERACTION_TTL_SECONDS,
      Session: settings.session.maxSeconds,
      Grant: settings.session.maxSeconds,
    },
    async findAccount(_ctx, sub) {
      const user = /^[0-9a-f-]{36}$/i.test(sub) ? await users.find(sub) : null;
      if (!user || user.status !== 'approved') return undefined;
      return { accountId: user.id, claims: () => ({ sub: user.id }) };
    },
    interactions: { url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}` },
    loadExistingGrant: loadExistingGrant(clients, consents, users),
    async renderError(ctx, out) {
      // The spec redirects server_error to the client: safe once the client and exact redirect_uri are known.
      const back = serverErrorRedirect(ctx, out, settings.issuer);
      if (back) {
        ctx.status = 302;
        ctx.redirect(back);
        return;
      }
      ctx.type = 'html';
      ctx.body = providerErrorPage({
        error: out.error,
        uiLocales: ctx.oidc?.params?.ui_locales ?? ctx.query.ui_locales,
        acceptLanguage: ctx.get('accept-language'),
      });
    },
    routes: {
      authorization: `${OIDC_BASE_PATH}/authorize`,
      token: `${OIDC_BASE_PATH}/provider/token`,
      // Served by our own controllers; the provider's routes are moved out of the way.
      userinfo: `${OIDC_BASE_PATH}/provider/userinfo`,
      jwks: `${OIDC_BASE_PATH}/provider/jwks`,
      end_session: `${OIDC_BASE_PATH}/provider/logout`,
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: false },
      introspection: { enabled: false },
      revocation: { enabled: false },
      userinfo: { enabled: false },
      registration: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      // authorize-precheck.ts refused other resources; the code records the one named for the token's `aud`.
      // No scope belongs to a resource.
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => false,
        getResourceServerInfo(_ctx, indicator) {
          if (!settings.resources.includes(indicator)) throw new errors.InvalidTarget();
          return { scope: '', audience: indicator };
        },
      },
      dPoP: { enabled: false },
      rpInitiatedLogout: { enabled: false },
    },
    enabledJWA: { idTokenSigningAlgValues: ['RS256'] },
  });
  stampLoginsToTheMillisecond(provider);
  // Forwarded headers count only from the configured proxies, and only that many entries.
  provider.proxy = settings.trustProxyHops > 0;
  provider.maxIpsCount = settings.trustProxyHops;
  if (httpsIssuer) {
    // The issuer says https even where TLS ends at an untrusted proxy, so the Secure cookies can be set.
    Object.defineProperty(provider.request, 'protocol', { get: () => 'https' });
  }
  provider.on('server_error', (ctx: KoaContextWithOIDC, error: unknown) =>
    settings.onServerError(error, ctx.oidc?.route),
  );
  return provider;
}
