import { AsyncLocalStorage } from 'node:async_hooks';
import { type ClientEntity } from '../clients/client.entity';
import { type ClientRepository } from '../clients/client.repository';

interface TokenRequestContext {
  /** The client authentication method this request used (the spec allows both for every client). */
  authMethod: 'client_secret_basic' | 'client_secret_post';
  /** Client records read during this request: the provider's lookup and the grant handler share one query. */
  clients: Map<string, Promise<ClientEntity | null>>;
}

export const tokenRequest = new AsyncLocalStorage<TokenRequestContext>();

export function withAuthMethodOf<T>(authorization: string | undefined, work: () => T): T {
  const authMethod = /^basic /i.test(authorization ?? '') ? 'client_secret_basic' : 'client_secret_post';
  return tokenRequest.run({ authMethod, clients: new Map() }, work);
}

/** The client record, read once per request. */
export function findClientOnce(clients: ClientRepository, clientId: string): Promise<ClientEntity | null> {
  const memo = tokenRequest.getStore()?.clients;
  if (!memo) return clients.find(clientId);
  let found = memo.get(clientId);
  if (!found) memo.set(clientId, (found = clients.find(clientId)));
  return found;
}
