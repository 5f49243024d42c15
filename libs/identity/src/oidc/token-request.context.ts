import { AsyncLocalStorage } from 'node:async_hooks';
import { type ClientEntity } from '../clients/client.entity';
import { type ClientRepository } from '../clients/client.repository';

interface TokenRequestContext {
  /** The client authentication method this request used (the spec allows both for every client). */
  authMethod: 'client_secret_basic' | 'client_secret_post';
  /** The caller's address, for brute-force protection. */
  source: string;
  /** Client records read during this request: the provider's lookup and the grant handler share one query. */
  clients: Map<string, Promise<ClientEntity | null>>;
}

export const tokenRequest = new AsyncLocalStorage<TokenRequestContext>();

export function withTokenRequest<T>(authorization: string | undefined, source: string, work: () => T): T {
  const authMethod = /^basic /i.test(authorization ?? '') ? 'client_secret_basic' : 'client_secret_post';
  return tokenRequest.run({ authMethod, source, clients: new Map() }, work);
}

/** The client record, read once per request. */
export function findClientOnce(clients: ClientRepository, clientId: string): Promise<ClientEntity | null> {
  const memo = tokenRequest.getStore()?.clients;
  if (!memo) return clients.find(clientId);
  let found = memo.get(clientId);
  if (!found) memo.set(clientId, (found = clients.find(clientId)));
  return found;
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
