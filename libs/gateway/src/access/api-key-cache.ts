import { type ApiKeyEntity } from '../keys/api-key.entity';
import { type ApiKeyRepository } from '../keys/api-key.repository';
import { hashApiKey } from '../keys/api-keys.service';
import { type GatewayPrincipal, networkList } from './gateway-principal';

interface Entry {
  principal: GatewayPrincipal | null;
  until: number;
}

export interface ApiKeyCacheOptions {
  /** Revocation also arrives by signal. */
  ttlMs?: number;
  /** So that guessing does not reach the database each time. */
  negativeTtlMs?: number;
  /** Past `ttlMs`, a known key is still served while it is read again (default 5 minutes). */
  staleMs?: number;
  capacity?: number;
  now?: () => number;
}

/**
 * One database read per miss however many requests wait. A `config.changed` signal for `gateway.keys`
 * drops a revoked key at once on every instance; if the signal was lost, within `ttlMs`.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<GatewayPrincipal | null>>();
  private readonly ttlMs: number;
  private readonly negativeTtlMs: number;
  private readonly staleMs: number;
  private readonly capacity: number;
  private readonly now: () => number;
  private generation = 0;

  constructor(
    private readonly repository: Pick<ApiKeyRepository, 'findByHash'>,
    options: ApiKeyCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 30_000;
    this.negativeTtlMs = options.negativeTtlMs ?? 5_000;
    this.staleMs = options.staleMs ?? 300_000;
    this.capacity = options.capacity ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** Null when the key is unknown, revoked or expired. */
  async find(apiKey: string): Promise<GatewayPrincipal | null> {
    const hash = hashApiKey(apiKey);
    const id = hash.toString('base64');
    const now = this.now();
    const entry = this.entries.get(id);
    let principal: GatewayPrincipal | null;
    if (entry && entry.until > now) principal = entry.principal;
    else if (entry?.principal && entry.until + this.staleMs > now) {
      // Served while read again in the background, so no request waits for the database in steady traffic.
      principal = entry.principal;
      this.load(id, hash).catch(() => undefined);
    } else principal = await this.load(id, hash);
    if (principal?.expiresAt !== null && principal?.expiresAt !== undefined && principal.expiresAt <= now) return null;
    return principal;
  }

  invalidate(keyId?: string): void {
    this.generation++;
    if (keyId === undefined) {
      this.entries.clear();
      return;
    }
    for (const [hash, entry] of this.entries) {
      // An unknown key may have just been created: forget negative entries too.
      if (entry.principal === null || entry.principal.virtualKeyId === keyId) this.entries.delete(hash);
    }
  }

  private load(id: string, hash: Buffer): Promise<GatewayPrincipal | null> {
    const pending = this.loading.get(id);
    if (pending) return pending;
    const generation = this.generation;
    const promise = this.repository
      .findByHash(hash)
      .then((key) => {
        const principal = key && !key.revokedAt ? principalOfKey(key) : null;
        // A signal that arrived during the read may describe a newer state: do not cache.
        if (generation === this.generation) this.remember(id, principal);
        return principal;
      })
      .finally(() => this.loading.delete(id));
    this.loading.set(id, promise);
    return promise;
  }

  private remember(id: string, principal: GatewayPrincipal | null): void {
    if (this.entries.size >= this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(id, { principal, until: this.now() + (principal ? this.ttlMs : this.negativeTtlMs) });
  }
}

export function principalOfKey(key: ApiKeyEntity): GatewayPrincipal {
  return Object.freeze({
    kind: 'api-key' as const,
    virtualKeyId: key.id,
    label: key.name,
    tenantId: key.tenantId ?? null,
    allowedModels: key.allowedModels ? new Set(key.allowedModels) : null,
    rpmLimit: key.rpmLimit,
    tpmLimit: key.tpmLimit,
    dailyBudgetMicroUsd: key.dailyBudgetUsd === null ? null : Math.round(Number(key.dailyBudgetUsd) * 1_000_000),
    networks: key.allowedNetworks ? networkList(key.allowedNetworks) : null,
    expiresAt: key.expiresAt ? key.expiresAt.getTime() : null,
  });
}
