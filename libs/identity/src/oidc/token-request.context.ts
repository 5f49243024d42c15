import { AsyncLocalStorage } from 'node:async_hooks';
import { type ClientEntity } from '../clients/client.entity';
import { type ClientRepository } from '../clients/client.repository';
import { type ClientCache } from './client-cache';

interface TokenRequestContext {
  /** The client authentication method this request used (the spec allows both for every client). */
  authMethod: 'client_secret_basic' | 'client_secret_post';
  /** The caller's address, for brute-force protection. */
  source: string;
  /** Client records of the token endpoint: the provider's lookup and the grant handler share one read. */
  clients: ClientCache;
}

export const tokenRequest = new AsyncLocalStorage<TokenRequestContext>();

export function withTokenRequest<T>(
  authorization: string | undefined,
  source: string,
  clients: ClientCache,
  work: () => T,
): T {
  const authMethod = /^basic /i.test(authorization ?? '') ? 'client_secret_basic' : 'client_secret_post';
  return tokenRequest.run({ authMethod, source, clients }, work);
}

/** The client record: from the token endpoint's cache during a token request, else read now. */
export function findClientOnce(clients: ClientRepository, clientId: string): Promise<ClientEntity | null> {
  return tokenRequest.getStore()?.clients.find(clientId) ?? clients.find(clientId);
}

/** The credentials of an HTTP Basic `Authorization` header (RFC 6749 2.3.1: form-encoded), if any. */
export function basicCredentials(authorization: string | undefined): { id: string; secret: string } | undefined {
  const match = /^basic +([A-Za-z0-9+/=]+)$/i.exec(authorization ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    const unform = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '));
    return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}
