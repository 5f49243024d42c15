import { type ClientEntity } from '../clients/client.entity';
import { type ClientRepository } from '../clients/client.repository';

const MAX_ENTRIES = 10_000;

/**
 * Client records for the token endpoint's hot path: one read per client per `ttlMs` (and concurrent
 * lookups share it) instead of one query per token. A change to a client (secret rotated, disabled,
 * scopes changed) shows at the token endpoint within `ttlMs`; a failed read is not kept.
 */
export class ClientCache {
  private readonly entries = new Map<string, { at: number; client: Promise<ClientEntity | null> }>();

  constructor(
    private readonly clients: ClientRepository,
    private readonly ttlMs = 1000,
  ) {}

  find(clientId: string): Promise<ClientEntity | null> {
    const now = Date.now();
    const cached = this.entries.get(clientId);
    if (cached && now - cached.at < this.ttlMs) return cached.client;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    const client = this.clients.find(clientId);
    this.entries.set(clientId, { at: now, client });
    client.catch(() => this.entries.delete(clientId));
    return client;
  }
}
