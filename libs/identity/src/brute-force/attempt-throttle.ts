import { type CounterState, type Counters } from '@fed/bus';
import { createHash } from 'node:crypto';

export interface ThrottlePolicy {
  /** Failures are counted over this window (seconds). */
  windowSeconds: number;
  /** Failures of one account from one source before that source is locked for the rest of the window. */
  lockAfterPerSource: number;
  /** Failures of one account from all sources before every attempt on it is held back. */
  slowAfterPerAccount: number;
  /** The longest an account as a whole is ever held back (seconds): attacks cannot lock it out for long. */
  maxHoldSeconds: number;
}

export const defaultThrottlePolicy: ThrottlePolicy = {
  windowSeconds: 900,
  lockAfterPerSource: 5,
  slowAfterPerAccount: 10,
  maxHoldSeconds: 60,
};

const MAX_REMEMBERED = 10_000;

export type ThrottleDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Brute-force protection for password logins and client authentication. One source (address) that
 * keeps failing on an account is locked out of it for the window; failures from many sources only
 * slow the account down, with exponentially growing holds capped at `maxHoldSeconds`, so the real
 * user, from their own address, is never locked out by an attacker for longer than that.
 */
export class AttemptThrottle {
  /** (account, source) pairs found clean, until when: see `rememberCleanMs`. */
  private readonly clean = new Map<string, number>();

  constructor(
    private readonly counters: Counters,
    /** Keeps login and client-secret counters apart, e.g. `login`, `client`. */
    private readonly kind: string,
    private readonly policy: ThrottlePolicy = defaultThrottlePolicy,
    private readonly options: {
      /**
       * For hot paths (the token endpoint): a pair found with no failures is not asked about again for
       * this long. A failure seen by this instance forgets it at once; one seen by another instance
       * takes effect here within this time. 0 (default): every check asks the counters.
       */
      rememberCleanMs?: number;
    } = {},
  ) {}

  async check(account: string, source: string): Promise<ThrottleDecision> {
    const remember = this.options.rememberCleanMs ?? 0;
    const pairKey = `${account}\u0000${source}`;
    if (remember > 0 && (this.clean.get(pairKey) ?? 0) > Date.now()) return { allowed: true };
    const [pair, hold] = (await this.counters.peekMany([
      this.key('pair', account, source),
      this.key('hold', account),
    ])) as [CounterState, CounterState];
    if (pair.count >= this.policy.lockAfterPerSource) return { allowed: false, retryAfterSeconds: pair.resetInSeconds };
    if (hold.count > 0) return { allowed: false, retryAfterSeconds: hold.resetInSeconds };
    if (remember > 0 && pair.count === 0) {
      if (this.clean.size >= MAX_REMEMBERED) this.clean.clear();
      this.clean.set(pairKey, Date.now() + remember);
    }
    return { allowed: true };
  }

  async failed(account: string, source: string): Promise<void> {
    this.clean.delete(`${account}\u0000${source}`);
    const { windowSeconds, slowAfterPerAccount, maxHoldSeconds } = this.policy;
    const [, total] = await Promise.all([
      this.counters.hit(this.key('pair', account, source), windowSeconds),
      this.counters.hit(this.key('account', account), windowSeconds),
    ]);
    if (total.count >= slowAfterPerAccount) {
      const holdSeconds = Math.min(2 ** (total.count - slowAfterPerAccount), maxHoldSeconds);
      const holdKey = this.key('hold', account);
      // A window is never extended by a hit: a longer hold replaces a shorter one still running.
      if (holdSeconds > (await this.counters.peek(holdKey)).resetInSeconds) {
        await this.counters.reset(holdKey);
        await this.counters.hit(holdKey, holdSeconds);
      }
    }
  }

  /** The right secret was given: this source starts afresh, and so does the account. */
  async succeeded(account: string, source: string): Promise<void> {
    await Promise.all([
      this.counters.reset(this.key('pair', account, source)),
      this.counters.reset(this.key('account', account)),
      this.counters.reset(this.key('hold', account)),
    ]);
  }

  // Accounts and sources come from requests: hashed, keys stay short and no value can forge a separator.
  private key(part: string, ...values: string[]): string {
    const digest = createHash('sha256').update(values.join('\u0000')).digest('base64url').slice(0, 32);
    return `throttle:${this.kind}:${part}:${digest}`;
  }
}
