import { type SessionsInvalidatedV1, type TokenRevokedV1 } from '@fed/contracts';
import { type Signals, type Subscription } from '@fed/bus';

export interface RevocationListOptions {
  /** Tokens are accepted up to this long past `exp`, so revocations are kept that much longer. */
  clockSkewSeconds: number;
  /** The verifier refuses tokens older than this; a subject's cut-off is kept that long. */
  maxTokenAgeSeconds: number;
  sweepIntervalMs?: number;
  /** Epoch milliseconds; tests move it. */
  now?: () => number;
}

/** What a revocation can name in a verified token. */
export interface RevocableToken {
  readonly tokenId: string;
  readonly subject: string;
  /** Unix seconds. */
  readonly issuedAt: number;
}

const DEFAULT_SWEEP_INTERVAL_MS = 60_000;

/**
 * Revoked tokens (`jti`) and per-subject cut-offs (`sub` + `issuedBefore`), pushed over Signals
 * and checked in memory on every request. An entry is forgotten once no token it refuses could
 * pass the verifier anyway, so memory stays bounded by what is revoked within one token lifetime.
 */
export class RevocationList {
  /** jti -> Unix seconds after which the entry may go. */
  private readonly revokedTokens = new Map<string, number>();
  /** sub -> { cut-off, Unix seconds after which the entry may go }. */
  private readonly cutOffs = new Map<string, { issuedBefore: number; forgetAfter: number }>();
  private subscriptions: Subscription[] = [];
  private sweeper: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(private readonly options: RevocationListOptions) {
    this.now = options.now ?? Date.now;
  }

  get revokedTokenCount(): number {
    return this.revokedTokens.size;
  }

  get invalidatedSubjectCount(): number {
    return this.cutOffs.size;
  }

  revokeToken(tokenId: string, expiresAt: number): void {
    const forgetAfter = expiresAt + this.options.clockSkewSeconds;
    if (forgetAfter <= this.nowSeconds()) return;
    this.revokedTokens.set(tokenId, Math.max(forgetAfter, this.revokedTokens.get(tokenId) ?? 0));
    this.startSweeping();
  }

  invalidateSessions(subject: string, issuedBefore: number): void {
    const current = this.cutOffs.get(subject);
    if (current && current.issuedBefore >= issuedBefore) return;
    const forgetAfter = issuedBefore + this.options.maxTokenAgeSeconds + this.options.clockSkewSeconds;
    if (forgetAfter <= this.nowSeconds()) return;
    this.cutOffs.set(subject, { issuedBefore, forgetAfter });
    this.startSweeping();
  }

  isRevoked(token: RevocableToken): boolean {
    if (this.revokedTokens.size > 0 && this.revokedTokens.has(token.tokenId)) return true;
    if (this.cutOffs.size === 0) return false;
    const cutOff = this.cutOffs.get(token.subject);
    return cutOff !== undefined && token.issuedAt < cutOff.issuedBefore;
  }

  /**
   * Subscribes to `auth.token-revoked` and `auth.sessions-invalidated`, then reads what was retained
   * of them before this instance started; resolves once both are live and loaded (no gap between).
   */
  async attach(signals: Signals): Promise<void> {
    await this.detach();
    this.subscriptions = await Promise.all([
      signals.subscribe('auth.token-revoked', (signal) => this.onTokenRevoked(signal)),
      signals.subscribe('auth.sessions-invalidated', (signal) => this.onSessionsInvalidated(signal)),
    ]);
    const [revoked, invalidated] = await Promise.all([
      signals.retained('auth.token-revoked'),
      signals.retained('auth.sessions-invalidated'),
    ]);
    for (const signal of revoked) this.onTokenRevoked(signal);
    for (const signal of invalidated) this.onSessionsInvalidated(signal);
    if (this.revokedTokens.size > 0 || this.cutOffs.size > 0) this.startSweeping();
  }

  async detach(): Promise<void> {
    const subscriptions = this.subscriptions;
    this.subscriptions = [];
    this.stopSweeping();
    await Promise.allSettled(subscriptions.map((subscription) => subscription.unsubscribe()));
  }

  /** Forgets entries that can no longer matter; runs on an unref'd timer while anything is held. */
  sweep(): void {
    const now = this.nowSeconds();
    for (const [tokenId, forgetAfter] of this.revokedTokens) if (forgetAfter <= now) this.revokedTokens.delete(tokenId);
    for (const [subject, cutOff] of this.cutOffs) if (cutOff.forgetAfter <= now) this.cutOffs.delete(subject);
    if (this.revokedTokens.size === 0 && this.cutOffs.size === 0) this.stopSweeping();
  }

  // Signals come from the wire: anything malformed is ignored rather than trusted.
  private onTokenRevoked(signal: TokenRevokedV1): void {
    if (typeof signal?.jti === 'string' && signal.jti !== '' && Number.isFinite(signal.expiresAt)) {
      this.revokeToken(signal.jti, signal.expiresAt);
    }
  }

  private onSessionsInvalidated(signal: SessionsInvalidatedV1): void {
    if (typeof signal?.subject === 'string' && signal.subject !== '' && Number.isFinite(signal.issuedBefore)) {
      this.invalidateSessions(signal.subject, signal.issuedBefore);
    }
  }

  private nowSeconds(): number {
    return this.now() / 1000;
  }

  private startSweeping(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => this.sweep(), this.options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  private stopSweeping(): void {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}
