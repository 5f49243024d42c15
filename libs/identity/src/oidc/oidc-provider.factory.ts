import { scopes as supportedScopes } from '@fed/contracts';
import { createHash, timingSafeEqual } from 'node:crypto';
import type Provider from 'oidc-provider';
import {
  type Adapter,
  type AdapterPayload,
  type KoaContextWithOIDC,
  type TokenEndpointGrantContext,
  type errors as OidcErrors,
} from 'oidc-provider';
import { type AttemptThrottle } from '../brute-force/attempt-throttle';
import { type ClientEntity } from '../clients/client.entity';
import { type ClientRepository } from '../clients/client.repository';
import { type ConsentRepository } from '../consents/consent.repository';
import { type UserRepository } from '../users/user.repository';
import { type ArtifactStore } from './artifacts/artifact-store';
import { clientCredentialsGrant } from './grants/client-credentials.grant';
import { type SessionSettings, type UserGrantDependencies, userGrants } from './grants/user-grants';
import { errorPage } from './interactions/pages';
import { isUnreachable } from './oauth-errors';
import { type TokenIssuer } from './token-issuer';
import { basicCredentials, findClientOnce, tokenRequest } from './token-request.context';

export const OIDC_BASE_PATH = '/federation/auth/v1';
export const INTERACTION_PATH = `${OIDC_BASE_PATH}/interaction`;

const AUTHORIZATION_CODE_TTL_SECONDS = 60;
const INTERACTION_TTL_SECONDS = 900;

export interface OidcProviderSettings {
  issuer: string;
  session: SessionSettings;
  /** Signs the provider's cookies (session, interaction). */
  cookieKey: Buffer;
  /** The provider's own JWKS (it signs nothing we hand out, but insists on a key). */
  signingJwk: Record<string, unknown>;
  /** Errors the provider answers as `server_error` (it hides them from the client). */
  onServerError: (error: unknown, route: string | undefined) => void;
}

export interface OidcProviderDependencies extends Omit<UserGrantDependencies, 'errors' | 'settings'> {
  consents: ConsentRepository;
  users: UserRepository;
  issuer: TokenIssuer;
  /** Brute-force protection of client authentication at the token endpoint. */
  clientThrottle: AttemptThrottle;
}

function clientMetadata(client: ClientEntity): AdapterPayload {
  return {
    client_id: client.clientId,
    // The SHA-256 of the secret: compareClientSecret below hashes what the client sends.
    client_secret: client.secretHash.toString('hex'),
    grant_types: client.grantTypes,
    redirect_uris: client.redirectUris,
    response_types: client.grantTypes.includes('authorization_code') ? ['code'] : [],
    token_endpoint_auth_method: 'client_secret_basic',
    id_token_signed_response_alg: 'RS256',
    // The provider refuses at the authorization endpoint a scope the client was not given.
    scope: [...new Set(['openid', ...client.scopes])].join(' '),
  };
}

/** Clients come from the registry; the provider's other models live in PostgreSQL. */
function adapterFor(clients: ClientRepository, artifacts: ArtifactStore) {
  return class Storage implements Adapter {
    constructor(private readonly model: string) {}

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.model === 'Client') {
        const client = id.length <= 64 ? await findClientOnce(clients, id) : null;
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
 * RFC 6749 5.2 and the spec: a client using a grant it was not given gets `unauthorized_client`; the
 * library answers `invalid_request` for that one case, recognised by its fixed description.
 */
async function grantNotAllowedIsUnauthorizedClient(
  ctx: { oidc?: { route?: string }; body?: unknown },
  next: () => Promise<unknown>,
): Promise<void> {
  await next();
  const body = ctx.body as { error?: string; error_description?: string } | undefined;
  if (
    ctx.oidc?.route === 'token' &&
    body?.error === 'invalid_request' &&
    body.error_description === 'requested grant type is not allowed for this client'
  ) {
    body.error = 'unauthorized_client';
  }
}

/** The spec's 502 `bad_gateway`: the provider masks every failure as 500 `server_error`; ours unreachable is 502. */
async function storageUnreachableIsBadGateway(
  ctx: { state: { storageUnreachable?: boolean }; status: number; body?: unknown },
  next: () => Promise<unknown>,
): Promise<void> {
  await next();
  if (ctx.state.storageUnreachable && ctx.status === 500) {
    ctx.status = 502;
    ctx.body = { error: 'bad_gateway', error_description: 'the authentication platform could not be reached' };
  }
}

/**
 * Brute-force protection at the token endpoint: a failed client authentication is counted for the
 * client id and the caller's address; while they are locked, every request of theirs is refused
 * with the same `invalid_client`, the right secret included, so the lock tells nothing.
 */
function throttleClientAuthentication(throttle: AttemptThrottle) {
  return async (
    ctx: {
      oidc?: { route?: string; client?: { clientId: string }; body?: Record<string, unknown> };
      status: number;
      body?: unknown;
      headers: Record<string, string | string[] | undefined>;
    },
    next: () => Promise<unknown>,
  ): Promise<void> => {
    await next();
    if (ctx.oidc?.route !== 'token') return;
    const error = (ctx.body as { error?: string } | undefined)?.error;
    if (error !== 'invalid_client') return;
    const clientId =
      ctx.oidc.client?.clientId ??
      basicCredentials(ctx.headers.authorization as string | undefined)?.id ??
      (typeof ctx.oidc.body?.client_id === 'string' ? ctx.oidc.body.client_id : undefined);
    const source = tokenRequest.getStore()?.source;
    if (clientId && source && clientId.length <= 64) await throttle.failed(clientId, source);
  };
}

/** A grant handler that first refuses a client locked for the caller's address (the client has authenticated). */
function unlessLocked(
  throttle: AttemptThrottle,
  errors: typeof OidcErrors,
  handler: (ctx: TokenEndpointGrantContext) => Promise<void>,
) {
  return async (ctx: TokenEndpointGrantContext): Promise<void> => {
    const source = tokenRequest.getStore()?.source;
    if (source && !(await throttle.check(ctx.oidc.client.clientId, source)).allowed) {
      throw new errors.InvalidClient('client authentication failed');
    }
    await handler(ctx);
  };
}

/**
 * The grant of a returning user: consent is asked on the first use of an application whose consent
 * screen is enabled, and again (for every scope) once the application has a scope the user has not
 * agreed to. Otherwise the grant covers the application's scopes without a consent screen.
 */
function loadExistingGrant(clients: ClientRepository, consents: ConsentRepository) {
  return async (ctx: KoaContextWithOIDC) => {
    const { provider, session, client: oidcClient } = ctx.oidc;
    const accountId = session?.accountId;
    if (!oidcClient || !accountId) return undefined;
    const client = await findClientOnce(clients, oidcClient.clientId);
    if (!client) return undefined;
    const decided = ctx.oidc.result?.consent?.grantId as string | undefined;
    const existingId = decided ?? session.grantIdFor(client.clientId);
    const existing = existingId ? await provider.Grant.find(existingId) : undefined;
    if (decided && existing) return existing;
    if (client.consentRequired && !(await consents.covers(accountId, client.clientId, client.scopes))) return undefined;
    const grant =
      existing && existing.accountId === accountId
        ? existing
        : new provider.Grant({ accountId, clientId: client.clientId });
    grant.addOIDCScope(['openid', ...client.scopes].join(' '));
    await grant.save();
    return grant;
  };
}

/** Loaded when a server mounts the provider, not by every importer of this lib (platformctl). */
export async function createOidcProvider(
  deps: OidcProviderDependencies,
  settings: OidcProviderSettings,
): Promise<Provider> {
  const { default: Provider, errors } = await import('oidc-provider');
  const { clients, users, consents, artifacts } = deps;
  const provider = new Provider(settings.issuer, {
    jwks: { keys: [settings.signingJwk] },
    adapter: adapterFor(clients, artifacts),
    clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
    responseTypes: ['code'],
    scopes: [...supportedScopes],
    pkce: { required: () => false },
    allowOmittingSingleRegisteredRedirectUri: false,
    cookies: {
      keys: [settings.cookieKey.toString('base64url')],
      long: { httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
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
    loadExistingGrant: loadExistingGrant(clients, consents),
    async renderError(ctx, out) {
      ctx.type = 'html';
      ctx.body = errorPage(out.error ?? 'server_error', out.error_description ?? 'the request failed');
    },
    routes: {
      authorization: `${OIDC_BASE_PATH}/authorize`,
      token: `${OIDC_BASE_PATH}/token`,
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
      dPoP: { enabled: false },
      rpInitiatedLogout: { enabled: false },
    },
    enabledJWA: { idTokenSigningAlgValues: ['RS256'] },
  });
  provider.proxy = settings.issuer.startsWith('https:');
  provider.on('server_error', (ctx: KoaContextWithOIDC, error: unknown) => {
    settings.onServerError(error, ctx.oidc?.route);
    if (isUnreachable(error)) (ctx.state as { storageUnreachable?: boolean }).storageUnreachable = true;
  });
  provider.use(storageUnreachableIsBadGateway);

  const grants = userGrants({ ...deps, settings: settings.session, errors });
  const guard = (handler: (ctx: TokenEndpointGrantContext) => Promise<void>) =>
    unlessLocked(deps.clientThrottle, errors, handler);
  provider.registerGrantType('authorization_code', guard(grants.authorizationCode), [
    'code',
    'code_verifier',
    'redirect_uri',
  ]);
  provider.registerGrantType('refresh_token', guard(grants.refreshToken), ['refresh_token', 'scope']);
  provider.registerGrantType('client_credentials', guard(clientCredentialsGrant(clients, deps.issuer, errors)), [
    'scope',
  ]);
  provider.use(grantNotAllowedIsUnauthorizedClient);
  provider.use(throttleClientAuthentication(deps.clientThrottle));

  const hashOf = (secret: string) => createHash('sha256').update(secret, 'utf8').digest();
  Object.defineProperties(provider.Client.prototype, {
    // Secrets are stored hashed: compare digests in constant time.
    compareClientSecret: {
      value(this: { clientSecret?: string }, actual: string) {
        const stored = Buffer.from(this.clientSecret ?? '', 'hex');
        const given = hashOf(actual);
        return stored.length === given.length && timingSafeEqual(stored, given);
      },
    },
    // Any client may use either method; the provider would otherwise insist on the registered one.
    clientAuthMethod: {
      get(this: { tokenEndpointAuthMethod: string }) {
        return tokenRequest.getStore()?.authMethod ?? this.tokenEndpointAuthMethod;
      },
    },
  });
  return provider;
}
