import { type ClientsService } from './clients.service';

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
 * Makes the client if it is missing and points its redirects at `baseUrl` otherwise, so they follow the
 * address the app is served at (the demo realm's web app, all-in-one and distributed). Changes nothing else.
 */
export async function ensureFirstPartyWebClient(clients: ClientsService, client: FirstPartyWebClient): Promise<void> {
  const uris = {
    redirectUris: [`${client.baseUrl}${client.callbackPath}`],
    postLogoutRedirectUris: [`${client.baseUrl}${client.signedOutPath}`],
  };
  const existing = await clients.find(client.clientId);
  if (!existing) {
    await clients.create({
      clientId: client.clientId,
      name: client.name,
      grantTypes: ['authorization_code', 'refresh_token'],
      scopes: client.scopes,
      ...uris,
      consentRequired: false,
      publicClient: true,
    });
  } else if (
    existing.redirectUris.join(' ') !== uris.redirectUris.join(' ') ||
    existing.postLogoutRedirectUris.join(' ') !== uris.postLogoutRedirectUris.join(' ')
  ) {
    await clients.setRedirectUris(client.clientId, uris);
  }
}
