import { type Counters } from '@fed/bus';
import { IGNORED_SIGN_IN_EVENTS, type SignInEvents } from './sign-in-events';
import { throttleKey } from './throttle-key';

export interface ClientThrottlePolicy {
  windowSeconds: number;
  /** Failures of one client id from one address that lock that pair for the rest of the window. */
  lockAfterPerSource: number;
}

export const defaultClientThrottlePolicy: ClientThrottlePolicy = { windowSeconds: 900, lockAfterPerSource: 5 };

const MAX_REMEMBERED = 10_000;

/**
 * Only a (client id, address) pair is locked, never a client: client ids are public, so a client lock would let
 * anyone cut off its users. One atomic counter step after the constant-time compare means at most the limit of
 * concurrent guesses per window is tested, and concurrent right secrets are never counted.
 */
export class ClientThrottle {
  private readonly clean = new Map<string, number>();
  private readonly now: () => number;
  private readonly events: SignInEvents;

  constructor(
    private readonly counters: Counters,
    private readonly policy: ClientThrottlePolicy = defaultClientThrottlePolicy,
    private readonly options: {
      /**
       * A right secret from a pair found clean skips the counters for this long (the token endpoint's hot path); a
       * failure elsewhere applies here within this time. 0: always ask.
       */
      rememberCleanMs?: number;
      now?: () => number;
      events?: SignInEvents;
    } = {},
  ) {
    this.now = options.now ?? Date.now;
    this.events = options.events ?? IGNORED_SIGN_IN_EVENTS;
  }

  /** A refusal looks like a wrong secret. */
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
