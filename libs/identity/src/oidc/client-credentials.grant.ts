import { SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import { type TokenEndpointGrantContext, type errors as OidcErrors } from 'oidc-provider';
import { type ClientRepository } from '../clients/client.repository';
import { type SigningKeysService } from '../signing-keys/signing-keys.service';
import { findClientOnce } from './token-request.context';

export interface ClientCredentialsSettings {
  issuer: string;
  tokenTtlSeconds: number;
  serviceAccountDomain: string;
}

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
export function clientCredentialsGrant(
  clients: ClientRepository,
  keys: SigningKeysService,
  settings: ClientCredentialsSettings,
  errors: typeof OidcErrors,
) {
  return async (ctx: TokenEndpointGrantContext): Promise<void> => {
    const client = await findClientOnce(clients, ctx.oidc.client.clientId);
    if (!client || !client.enabled) throw new errors.InvalidClient('client authentication failed');
    if (!client.tenant?.enabled) throw new errors.UnauthorizedClient("the client's tenant is disabled");
    const requested = ctx.oidc.params.scope?.split(' ').filter(Boolean);
    const granted = requested ?? client.scopes;
    const refused = granted.find((scope) => !client.scopes.includes(scope));
    if (refused !== undefined) throw new errors.InvalidScope('requested scope is not allowed for this client', refused);

    const { kid, privateKey } = await keys.activeSigningKey();
    const now = Math.floor(Date.now() / 1000);
    const exp = now + settings.tokenTtlSeconds;
    const tenant = { id: client.tenant.id, type: client.tenant.type, endpoint: client.tenant.endpoint };
    const preferredUsername = `service-account-${client.clientId}@${settings.serviceAccountDomain}`;
    const scope = [...new Set(granted)].join(' ');
    const header = { alg: 'RS256', typ: 'JWT', kid };

    const accessToken = await new SignJWT({
      typ: 'Bearer',
      azp: client.clientId,
      scope,
      preferred_username: preferredUsername,
      realm_access: { roles: ['M2M'] },
      tenant,
    })
      .setProtectedHeader(header)
      .setIssuer(settings.issuer)
      .setSubject(client.serviceAccountId)
      .setIssuedAt(now)
      .setExpirationTime(exp)
      .setJti(randomUUID())
      .sign(privateKey);
    const idToken = await new SignJWT({
      typ: 'ID',
      azp: client.clientId,
      preferred_username: preferredUsername,
      tenant,
    })
      .setProtectedHeader(header)
      .setIssuer(settings.issuer)
      .setSubject(client.serviceAccountId)
      .setAudience(client.clientId)
      .setIssuedAt(now)
      .setExpirationTime(exp)
      .setJti(randomUUID())
      .sign(privateKey);

    const body: ClientCredentialsResponse = {
      access_token: accessToken,
      id_token: idToken,
      expires_in: settings.tokenTtlSeconds,
      token_type: 'Bearer',
      scope,
    };
    ctx.body = body;
  };
}
