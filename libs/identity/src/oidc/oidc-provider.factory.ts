import { createHash, timingSafeEqual } from 'node:crypto';
import type Provider from 'oidc-provider';
import { type Adapter, type AdapterPayload } from 'oidc-provider';
import { type ClientEntity } from '../clients/client.entity';
import { type ClientRepository } from '../clients/client.repository';
import { type ActiveSigningKey, type SigningKeysService } from '../signing-keys/signing-keys.service';
import { type ClientCredentialsSettings, clientCredentialsGrant } from './client-credentials.grant';
import { findClientOnce, tokenRequest } from './token-request.context';

export const OIDC_BASE_PATH = '/federation/auth/v1';

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
  };
}

/**
 * Storage of the provider's artifacts. Clients come from the registry; the other models belong to
 * the flows that are not served yet (authorization code, refresh, sessions), so they refuse loudly.
 */
function adapterFor(clients: ClientRepository) {
  return class RegistryAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.model !== 'Client') throw new Error(`${this.model} storage is not served yet`);
      const client = id.length <= 64 ? await findClientOnce(clients, id) : null;
      return client?.enabled ? clientMetadata(client) : undefined;
    }

    async upsert(): Promise<void> {
      throw new Error(`${this.model} storage is not served yet`);
    }
    async findByUid(): Promise<undefined> {
      return undefined;
    }
    async findByUserCode(): Promise<undefined> {
      return undefined;
    }
    async consume(): Promise<void> {}
    async destroy(): Promise<void> {}
    async revokeByGrantId(): Promise<void> {}
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

/** Loaded when a server mounts the provider, not by every importer of this lib (platformctl). */
export async function createOidcProvider(
  clients: ClientRepository,
  keys: SigningKeysService,
  activeKey: ActiveSigningKey,
  settings: ClientCredentialsSettings,
): Promise<Provider> {
  const { default: Provider, errors } = await import('oidc-provider');
  const signingJwk = {
    ...activeKey.privateKey.export({ format: 'jwk' }),
    kid: activeKey.kid,
    alg: 'RS256',
    use: 'sig',
  };
  const provider = new Provider(settings.issuer, {
    jwks: { keys: [signingJwk] },
    adapter: adapterFor(clients),
    clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
    routes: {
      authorization: `${OIDC_BASE_PATH}/authorize`,
      token: `${OIDC_BASE_PATH}/token`,
      userinfo: `${OIDC_BASE_PATH}/userinfo`,
      revocation: `${OIDC_BASE_PATH}/revoke`,
      // The spec's JWKS is served by the identity module (it publishes keys before they sign).
      jwks: `${OIDC_BASE_PATH}/provider-jwks`,
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: false },
      introspection: { enabled: false },
      revocation: { enabled: false },
      registration: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      dPoP: { enabled: false },
      rpInitiatedLogout: { enabled: false },
    },
    enabledJWA: { idTokenSigningAlgValues: ['RS256'] },
  });
  provider.registerGrantType('client_credentials', clientCredentialsGrant(clients, keys, settings, errors), ['scope']);
  provider.use(grantNotAllowedIsUnauthorizedClient);

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
