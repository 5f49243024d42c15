import { managementScopes } from '@fed/contracts';
import { type ClientsService } from './clients.service';

/**
 * The web app's client id (`WEB_CLIENT_ID` of `@fed/web-host`, which a test keeps equal): the platform signs in with
 * it, so it is protected from deletion and disabling over HTTP.
 */
export const FIRST_PARTY_WEB_CLIENT_ID = 'web';

/** A browser app of the operator's own: a public client (PKCE, no secret) with no consent page. */
export interface FirstPartyWebClient {
  clientId: string;
  name: string;
  scopes: string[];
  /** The app's public address; the redirects are under it. */
  baseUrl: string;
  callbackPath: string;
  signedOutPath: string;
}

/**
 * Makes the client if it is missing; otherwise points its redirects at `baseUrl`, so they follow the address the
 * app is served at (the demo realm's web app, all-in-one and distributed), and adds any of its scopes it lacks.
 * Changes nothing else. The app is also the operator console: besides its own scopes the client has the management
 * scopes, `platform:manage` included (allowManagementScopes), which only its admins (and, for `platform:manage`,
 * platform operators) hold, and only when the app asks for them.
 */
export async function ensureFirstPartyWebClient(clients: ClientsService, client: FirstPartyWebClient): Promise<void> {
  const uris = {
    redirectUris: [`${client.baseUrl}${client.callbackPath}`],
    postLogoutRedirectUris: [`${client.baseUrl}${client.signedOutPath}`],
  };
  const scopes = [...new Set([...client.scopes, ...managementScopes])];
  const existing = await clients.find(client.clientId);
  if (!existing) {
    await clients.create({
      clientId: client.clientId,
      name: client.name,
      grantTypes: ['authorization_code', 'refresh_token'],
      scopes,
      ...uris,
      consentRequired: false,
      publicClient: true,
      allowManagementScopes: true,
    });
    return;
  }
  const missing = scopes.filter((scope) => !existing.scopes.includes(scope));
  const moved =
    existing.redirectUris.join(' ') !== uris.redirectUris.join(' ') ||
    existing.postLogoutRedirectUris.join(' ') !== uris.postLogoutRedirectUris.join(' ');
  if (!moved && missing.length === 0) return;
  await clients.update(
    client.clientId,
    {
      ...(moved ? uris : {}),
      ...(missing.length > 0 ? { scopes: [...existing.scopes, ...missing], allowManagementScopes: true } : {}),
    },
    // The platform's own client is protected from the console and platformctl, not from the platform.
    { force: true },
  );
}
