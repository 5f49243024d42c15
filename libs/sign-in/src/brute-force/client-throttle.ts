import { type Counters } from '@fed/bus';
import { IGNORED_SIGN_IN_EVENTS, type SignInEvents } from './sign-in-events';
import { throttleKey } from './throttle-key';

export interface ClientThrottlePolicy {
  /** Failures are counted over this window (seconds). */
  windowSeconds: number;
  /** Failures of one client id from one address that lock that pair for the rest of the window. */
  lockAfterPerSource: number;
}

export const defaultClientThrottlePolicy: ClientThrottlePolicy = { windowSeconds: 900, lockAfterPerSource: 5 };

const MAX_REMEMBERED = 10_000;

/**
 * Brute-force protection of client secrets (token endpoint, revoke, Marketplace). Only a (client id,
 * address) pair is ever locked, never a client: client ids are public, so a lock on the client would
 * let anyone cut off its users. The secret is compared first (a constant-time hash compare), then one
 * atomic counter step decides: a wrong secret is always counted, a right one stands only while its
 * pair is below the limit. So however many guesses arrive at once, at most the limit of them per window
 * is ever tested, and a busy client's concurrent right secrets are never counted as attempts.
 */
export class ClientThrottle {
  /** Pairs found clean with a right secret, until when: see `rememberCleanMs`. */
  private readonly clean = new Map<string, number>();
  private readonly now: () => number;
  private readonly events: SignInEvents;

  constructor(
    private readonly counters: Counters,
    private readonly policy: ClientThrottlePolicy = defaultClientThrottlePolicy,
    private readonly options: {
      /**
       * For the hot path (the token endpoint): a right secret from a pair found with no failures is
       * accepted without asking the counters again for this long. A failure seen here forgets the
       * pair at once; one seen by another instance applies here within this time. 0: always ask.
       */
      rememberCleanMs?: number;
      now?: () => number;
      /** Refusals (`invalid_client`, `throttled`) and the locks of pairs. */
      events?: SignInEvents;
    } = {},
  ) {
    this.now = options.now ?? Date.now;
    this.events = options.events ?? IGNORED_SIGN_IN_EVENTS;
  }

  /** Whether the client authentication stands, given whether the secret matched; a refusal looks like a wrong secret. */
  async accepts(clientId: string, source: string, secretMatches: boolean): Promise<boolean> {
    const pair = `${clientId}\u0000${source}`;
    const remember = this.options.rememberCleanMs ?? 0;
    if (secretMatches && remember > 0 && (this.clean.get(pair) ?? 0) > this.now()) return true;
    const key = throttleKey('client', 'pair', clientId, source);
    if (!secretMatches) {
      this.clean.delete(pair);
      this.events.failed('invalid_client');
      const failures = await this.counters.hit(key, this.policy.windowSeconds);
      if (failures.count === this.policy.lockAfterPerSource) this.events.lockedOut();
      return false;
    }
    const failures = await this.counters.peek(key);
    if (failures.count >= this.policy.lockAfterPerSource) {
      this.events.failed('throttled');
      return false;
    }
    // A success clears the source's failures; a clean pair (the steady state) costs no second round trip.
    if (failures.count > 0) await this.counters.reset(key);
    else if (remember > 0) {
      if (this.clean.size >= MAX_REMEMBERED) this.clean.clear();
      this.clean.set(pair, this.now() + remember);
    }
    return true;
  }
}
