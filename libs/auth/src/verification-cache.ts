import { type AccessTokenPrincipal } from './access-token.principal';

interface Entry {
  principal: AccessTokenPrincipal;
  /** Epoch milliseconds after which the token would no longer pass. */
  validUntil: number;
  keysVersion: number;
}

export const DEFAULT_VERIFICATION_CACHE_SIZE = 10_000;

/** LRU of verified tokens; an entry dies at expiry or when a key leaves. Revocation is checked elsewhere, every use. */
export class VerificationCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly capacity: number = DEFAULT_VERIFICATION_CACHE_SIZE) {}

  get size(): number {
    return this.entries.size;
  }

  get(token: string, now: number, keysVersion: number): AccessTokenPrincipal | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    this.entries.delete(token);
    if (entry.validUntil <= now || entry.keysVersion !== keysVersion) return undefined;
    this.entries.set(token, entry);
    return entry.principal;
  }

  set(token: string, principal: AccessTokenPrincipal, validUntil: number, keysVersion: number): void {
    if (this.capacity <= 0) return;
    this.entries.delete(token);
    this.entries.set(token, { principal, validUntil, keysVersion });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }
}
