import { type SigningKeyRevokedV1 } from '@fed/contracts';
import { type Signals, type Subscription } from '@fed/bus';
import { type JsonWebKey, type KeyObject, createPublicKey } from 'node:crypto';
import { invalidToken } from './auth.errors';

export interface JwksKeySetOptions {
  url: string;
  /** Least time between two fetches: bounds what a flood of unknown `kid`s or an outage can cause. */
  refetchCooldownMs?: number;
  /** Past this age the set is refreshed in the background while the cached keys keep serving. */
  maxAgeMs?: number;
  timeoutMs?: number;
}

export const JWKS_DEFAULTS = { refetchCooldownMs: 5_000, maxAgeMs: 10 * 60_000, timeoutMs: 3_000 } as const;

const MIN_RSA_MODULUS_BITS = 2048;

/** An unknown `kid` triggers one shared refetch (rotation); a failed fetch keeps the known keys. */
export class JwksKeySet {
  private keys = new Map<string, KeyObject>();
  private loadedAt = -Infinity;
  private attemptedAt = -Infinity;
  private pending: Promise<void> | undefined;
  private removals = 0;
  /** Keys revoked in an emergency: never used again, even if a stale copy of the JWKS still lists them. */
  private readonly withdrawn = new Set<string>();
  private subscription: Subscription | undefined;
  private readonly cooldownMs: number;
  private readonly maxAgeMs: number;
  private readonly timeoutMs: number;

  constructor(private readonly options: JwksKeySetOptions) {
    this.cooldownMs = options.refetchCooldownMs ?? JWKS_DEFAULTS.refetchCooldownMs;
    this.maxAgeMs = options.maxAgeMs ?? JWKS_DEFAULTS.maxAgeMs;
    this.timeoutMs = options.timeoutMs ?? JWKS_DEFAULTS.timeoutMs;
  }

  /** Changes whenever a key leaves the set, so results verified with it can be dropped. */
  get version(): number {
    return this.removals;
  }

  async keyFor(kid: string): Promise<KeyObject> {
    if (this.withdrawn.has(kid)) throw invalidToken('the token was signed by a revoked key');
    const now = Date.now();
    const known = this.keys.get(kid);
    if (known) {
      if (now - this.loadedAt >= this.maxAgeMs && this.mayFetch(now)) this.refresh().catch(() => undefined);
      return known;
    }
    if (!this.mayFetch(now)) throw this.noKeyFor();
    try {
      await this.refresh();
    } catch {
      throw invalidToken('the signing keys are unavailable');
    }
    const key = this.keys.get(kid);
    if (!key) throw this.noKeyFor();
    return key;
  }

  /** A compromised key: its tokens are refused from now on, cached results included. */
  withdraw(kid: string): void {
    this.withdrawn.add(kid);
    if (this.keys.delete(kid)) this.removals++;
    // Its replacement signs already: the first token with the new `kid` may fetch at once.
    this.attemptedAt = -Infinity;
  }

  /** Subscribes first, then reads retained revocations, so none is missed. */
  async attach(signals: Signals): Promise<void> {
    await this.detach();
    this.subscription = await signals.subscribe('auth.signing-key-revoked', (signal) => this.onKeyRevoked(signal));
    for (const signal of await signals.retained('auth.signing-key-revoked')) this.onKeyRevoked(signal);
  }

  async detach(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = undefined;
    await subscription?.unsubscribe();
  }

  // Signals come from the wire: anything malformed is ignored rather than trusted.
  private onKeyRevoked(signal: SigningKeyRevokedV1): void {
    if (typeof signal?.kid === 'string' && signal.kid !== '') this.withdraw(signal.kid);
  }

  private mayFetch(now: number): boolean {
    return this.pending !== undefined || now - this.attemptedAt >= this.cooldownMs;
  }

  private noKeyFor() {
    return this.loadedAt === -Infinity
      ? invalidToken('the signing keys are unavailable')
      : invalidToken('the token was signed by an unknown key');
  }

  private refresh(): Promise<void> {
    this.pending ??= this.fetchKeys().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async fetchKeys(): Promise<void> {
    this.attemptedAt = Date.now();
    const response = await fetch(this.options.url, {
      headers: { accept: 'application/jwk-set+json, application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new Error(`the JWKS endpoint answered ${response.status}`);
    }
    const next = importKeySet(await response.json());
    for (const kid of this.withdrawn) next.delete(kid);
    // An empty answer is more likely a broken endpoint than a deliberate withdrawal of every key.
    if (next.size === 0) throw new Error('the JWKS holds no usable RS256 key');
    for (const [kid, key] of this.keys) {
      const replacement = next.get(kid);
      if (!replacement || !replacement.equals(key)) {
        this.removals++;
        break;
      }
    }
    this.keys = next;
    this.loadedAt = Date.now();
  }
}

function importKeySet(jwks: unknown): Map<string, KeyObject> {
  const members = (jwks as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(members)) throw new Error('the JWKS response is not a JWK set');
  const keys = new Map<string, KeyObject>();
  const ambiguous = new Set<string>();
  for (const jwk of members) {
    if (!usableForRs256(jwk)) continue;
    let key: KeyObject;
    try {
      key = createPublicKey({ key: jwk as unknown as JsonWebKey, format: 'jwk' });
    } catch {
      continue;
    }
    if (key.asymmetricKeyType !== 'rsa' || (key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_MODULUS_BITS) {
      continue;
    }
    if (keys.has(jwk.kid)) ambiguous.add(jwk.kid);
    keys.set(jwk.kid, key);
  }
  // Two keys under one `kid` cannot be told apart: use neither.
  for (const kid of ambiguous) keys.delete(kid);
  return keys;
}

interface RsaJwk {
  kty: 'RSA';
  kid: string;
  n: string;
  e: string;
}

function usableForRs256(jwk: unknown): jwk is RsaJwk {
  if (typeof jwk !== 'object' || jwk === null) return false;
  const { kty, kid, use, alg, key_ops: keyOps, d } = jwk as Record<string, unknown>;
  return (
    kty === 'RSA' &&
    typeof kid === 'string' &&
    kid !== '' &&
    d === undefined &&
    (use === undefined || use === 'sig') &&
    (alg === undefined || alg === 'RS256') &&
    (keyOps === undefined || (Array.isArray(keyOps) && keyOps.includes('verify')))
  );
}
