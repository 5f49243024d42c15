import { type ClientEntity } from '@fed/identity/internal';

export interface ClientSource {
  /** `requester`: the address on whose behalf a metadata document may be fetched; without it nothing is fetched. */
  find(clientId: string, requester?: string): Promise<ClientEntity | null>;
}

const MAX_ENTRIES = 10_000;

interface Entry {
  at: number;
  client: Promise<ClientEntity | null>;
  /** A read still under way is shared, not served stale. */
  settled: boolean;
  refresh?: Promise<ClientEntity | null>;
}

/**
 * One read per client per `ttlMs` on the token endpoint's hot path. An expired entry keeps serving (up to twice
 * `ttlMs`) while one read replaces it, so no token waits for the database in steady traffic; a client change
 * shows within `ttlMs` and one read. Failed reads are not kept.
 */
export class ClientCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly clients: ClientSource,
    private readonly ttlMs = 1000,
  ) {}

  /** A read shared by concurrent lookups is made for the first one's `requester`. */
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
    // Never older than twice `ttlMs`, also after a quiet spell: a client disabled, deleted or given a new secret
    // an hour ago gets no token from an entry read before.
    return now - cached.at < 2 * this.ttlMs ? cached.client : entry.client;
  }
}
