import { type TokenEndpointGrantContext, type errors as OidcErrors } from 'oidc-provider';
import { type ClientRepository } from '../../clients/client.repository';
import { type TokenIssuer } from '../token-issuer';
import { findClientOnce } from '../token-request.context';

/** The spec's client-credentials token response: no refresh token, and an ID token for the service account. */
export interface ClientCredentialsResponse {
  access_token: string;
  id_token: string;
  expires_in: number;
  token_type: 'Bearer';
  scope: string;
}

/**
 * Replaces oidc-provider's client-credentials handler (it issues no ID token and none of the spec's
 * claims). Runs after the provider authenticated the client and checked its grant types.
 */
export function clientCredentialsGrant(clients: ClientRepository, issuer: TokenIssuer, errors: typeof OidcErrors) {
  return async (ctx: TokenEndpointGrantContext): Promise<void> => {
    const client = await findClientOnce(clients, ctx.oidc.client.clientId);
    if (!client || !client.enabled) throw new errors.InvalidClient('client authentication failed');
    if (!client.tenant?.enabled) throw new errors.UnauthorizedClient("the client's tenant is disabled");
    const requested = ctx.oidc.params.scope?.split(' ').filter(Boolean);
    const granted = requested ?? client.scopes;
    const refused = granted.find((scope) => !client.scopes.includes(scope));
    if (refused !== undefined) throw new errors.InvalidScope('requested scope is not allowed for this client', refused);

    const scope = [...new Set(granted)].join(' ');
    const tokens = await issuer.forServiceAccount({ ...client, tenant: client.tenant }, scope);
    const body: ClientCredentialsResponse = {
      access_token: tokens.accessToken,
      id_token: tokens.idToken,
      expires_in: issuer.tokenTtlSeconds,
      token_type: 'Bearer',
      scope,
    };
    ctx.body = body;
  };
}
