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

export interface RevocableToken {
  readonly tokenId: string;
  readonly subject: string;
  /** Unix seconds. */
  readonly issuedAt: number;
  /** When the user signed in, epoch milliseconds (`auth_time_ms`), when the token says. */
  readonly authTimeMs?: number;
}

const DEFAULT_SWEEP_INTERVAL_MS = 60_000;

/**
 * Revoked `jti`s and per-subject cut-offs from Signals, checked in memory on every request. A cut-off is
 * compared with `auth_time_ms` when the token has it, else `iat` with `issuedBefore`. Entries are forgotten
 * once no token they refuse could pass the verifier anyway, which bounds memory.
 */
export class RevocationList {
  /** jti -> Unix seconds after which the entry may go. */
  private readonly revokedTokens = new Map<string, number>();
  /** sub -> { cut-off as whole seconds and as epoch ms, Unix seconds after which the entry may go }. */
  private readonly cutOffs = new Map<string, { issuedBefore: number; cutOffMs: number; forgetAfter: number }>();
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

  /** `issuedBefore`: the second after the cut-off; `cutOffMs` defaults to it for older publishers. */
  invalidateSessions(subject: string, issuedBefore: number, cutOffMs = issuedBefore * 1000): void {
    const current = this.cutOffs.get(subject);
    if (current && current.issuedBefore >= issuedBefore && current.cutOffMs >= cutOffMs) return;
    const latest = {
      issuedBefore: Math.max(issuedBefore, current?.issuedBefore ?? 0),
      cutOffMs: Math.max(cutOffMs, current?.cutOffMs ?? 0),
    };
    const forgetAfter = latest.issuedBefore + this.options.maxTokenAgeSeconds + this.options.clockSkewSeconds;
    if (forgetAfter <= this.nowSeconds()) return;
    this.cutOffs.set(subject, { ...latest, forgetAfter });
    this.startSweeping();
  }

  isRevoked(token: RevocableToken): boolean {
    if (this.revokedTokens.size > 0 && this.revokedTokens.has(token.tokenId)) return true;
    if (this.cutOffs.size === 0) return false;
    const cutOff = this.cutOffs.get(token.subject);
    if (cutOff === undefined) return false;
    return token.authTimeMs !== undefined ? token.authTimeMs < cutOff.cutOffMs : token.issuedAt < cutOff.issuedBefore;
  }

  /** Subscribes first, then loads retained signals, so there is no gap between the two. */
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
      const cutOffMs = Number.isFinite(signal.cutOffMs) ? signal.cutOffMs : undefined;
      this.invalidateSessions(signal.subject, signal.issuedBefore, cutOffMs);
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
