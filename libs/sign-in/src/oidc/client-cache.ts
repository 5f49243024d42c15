import { type ClientEntity } from '@fed/identity/internal';

/** Where clients are read from: the registry (ClientRepository), or SelfRegisteredClients over it. */
export interface ClientSource {
  /**
   * `requester`: the client address of the request that needs the client, where a lookup may fetch a
   * metadata document on its behalf (the authorization and token endpoints); without it nothing is fetched.
   */
  find(clientId: string, requester?: string): Promise<ClientEntity | null>;
}

const MAX_ENTRIES = 10_000;

interface Entry {
  /** When the read that gave `client` began. */
  at: number;
  client: Promise<ClientEntity | null>;
  /** The read has answered (a read still under way is shared, not served stale). */
  settled: boolean;
  /** The read replacing this entry, once its time is up. */
  refresh?: Promise<ClientEntity | null>;
}

/**
 * Client records for the token endpoint's hot path: one read per client per `ttlMs` (and concurrent
 * lookups share it) instead of one query per token. When an entry's time is up, one read replaces
 * it while the tokens asked for meanwhile are served from the entry (up to twice `ttlMs` old; after
 * that they wait for the read), so no token waits for the database in steady traffic. A change to a
 * client (secret rotated, disabled, scopes changed) shows at the token endpoint within `ttlMs` and
 * one read; a failed read is not kept. A metadata document's client is fetched once for the
 * concurrent first uses of one instance (they share the read).
 */
export class ClientCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly clients: ClientSource,
    private readonly ttlMs = 1000,
  ) {}

  /** `requester`: as ClientSource's; a read shared by concurrent lookups is made for the first one's. */
  find(clientId: string, requester?: string): Promise<ClientEntity | null> {
    const now = Date.now();
    const cached = this.entries.get(clientId);
    if (cached && (now - cached.at < this.ttlMs || !cached.settled)) return cached.client;
    if (cached?.refresh) return now - cached.at < 2 * this.ttlMs ? cached.client : cached.refresh;
    if (!cached && this.entries.size >= MAX_ENTRIES) this.entries.clear();
    const entry: Entry = { at: now, client: this.clients.find(clientId, requester), settled: false };
    const settle = () => {
      entry.settled = true;
      if (this.entries.get(clientId) === cached || cached === undefined) this.entries.set(clientId, entry);
    };
    const drop = () => {
      const current = this.entries.get(clientId);
      if (current === entry || current === cached) this.entries.delete(clientId);
    };
    entry.client.then(settle, drop);
    if (!cached) {
      this.entries.set(clientId, entry);
      return entry.client;
    }
    cached.refresh = entry.client;
    return cached.client;
  }
}
