import { Inject, Injectable } from '@nestjs/common';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { ClientRepository } from '@fed/identity/internal';
import { LocalTokenVerifier, TokenRejected } from '../local-token-verifier';

/** OpenID Connect RP-Initiated Logout. */
export interface SignOutParams {
  clientId?: string;
  idTokenHint?: string;
  postLogoutRedirectUri?: string;
  state?: string;
}

export interface SignOutReturnTarget {
  client?: { clientId: string; name: string };
  postLogoutRedirectUri?: string;
  state?: string;
  /** The URI with `state` added. */
  location?: string;
}

const LIMITS = { clientId: 64, idTokenHint: 16_384, postLogoutRedirectUri: 2000, state: 2000 } as const;

function text(value: unknown, limit: number): string | undefined {
  return typeof value === 'string' && value !== '' && value.length <= limit ? value : undefined;
}

/** A repeated, empty or oversized value counts as absent. */
export function signOutParams(source: Record<string, unknown>): SignOutParams {
  return {
    clientId: text(source.client_id, LIMITS.clientId),
    idTokenHint: text(source.id_token_hint, LIMITS.idTokenHint),
    postLogoutRedirectUri: text(source.post_logout_redirect_uri, LIMITS.postLogoutRedirectUri),
    state: text(source.state, LIMITS.state),
  };
}

/**
 * Only to a URI registered on the client (exact match), named by `client_id` or an ID token we signed (expired
 * or not), never by two names that disagree.
 */
@Injectable()
export class SignOutReturn {
  private readonly issuer: string;

  constructor(
    private readonly clients: ClientRepository,
    private readonly verifier: LocalTokenVerifier,
    @Inject(SERVICE_CONFIG) config: ServiceConfig,
  ) {
    this.issuer = config.auth.issuer;
  }

  async resolve(params: SignOutParams): Promise<SignOutReturnTarget> {
    const clientId = await this.namedClient(params);
    const client = clientId ? await this.clients.find(clientId) : null;
    if (!client?.enabled) return {};
    const named = { clientId: client.clientId, name: client.name };
    const uri = params.postLogoutRedirectUri;
    if (!uri || !client.postLogoutRedirectUris.includes(uri)) return { client: named };
    const location = new URL(uri);
    if (params.state) location.searchParams.set('state', params.state);
    return { client: named, postLogoutRedirectUri: uri, state: params.state, location: location.href };
  }

  private async namedClient(params: SignOutParams): Promise<string | undefined> {
    const hinted = params.idTokenHint ? await this.audienceOf(params.idTokenHint) : undefined;
    if (params.idTokenHint && !hinted) return undefined;
    if (hinted && params.clientId && hinted !== params.clientId) return undefined;
    return hinted ?? params.clientId;
  }

  private async audienceOf(idToken: string): Promise<string | undefined> {
    try {
      const claims = await this.verifier.verify(idToken, this.issuer, { ignoreExpiry: true });
      return claims.typ === 'ID' && typeof claims.azp === 'string' && claims.aud === claims.azp
        ? claims.azp
        : undefined;
    } catch (error) {
      if (error instanceof TokenRejected) return undefined;
      throw error;
    }
  }
}
