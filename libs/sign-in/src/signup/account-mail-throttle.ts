import { type Counters } from '@fed/bus';
import { throttleKey } from '../brute-force/throttle-key';

export interface AccountMailPolicy {
  /** Requests naming one e-mail address (each may send it one e-mail) per window. */
  perAddress: number;
  addressWindowSeconds: number;
  /** Requests from one client address per window, whatever e-mail address they name. */
  perSource: number;
  sourceWindowSeconds: number;
}

// Enough for a typo and two resends; a mailbox cannot be flooded, nor the sign-up form scripted.
export const defaultAccountMailPolicy: AccountMailPolicy = {
  perAddress: 3,
  addressWindowSeconds: 15 * 60,
  perSource: 20,
  sourceWindowSeconds: 60 * 60,
};

const USERNAME_HOLD_SECONDS = 24 * 60 * 60;

export type ThrottleDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Counted before the address is looked up, known or not, so a refusal tells nothing about an account; each
 * step is one atomic `take`, so concurrent requests never pass the limit.
 */
export class AccountMailThrottle {
  constructor(
    private readonly counters: Counters,
    private readonly policy: AccountMailPolicy = defaultAccountMailPolicy,
  ) {}

  /**
   * Held for a day whoever asked, so "taken" answers alike for a known address (no account made) and a new
   * one: a username cannot probe whether an address has an account.
   */
  async holdUsername(username: string): Promise<boolean> {
    return (await this.counters.take(throttleKey('mail', 'username', username), 1, USERNAME_HOLD_SECONDS)).taken;
  }

  async attempt(email: string, source: string): Promise<ThrottleDecision> {
    const { perSource, sourceWindowSeconds, perAddress, addressWindowSeconds } = this.policy;
    const bySource = await this.counters.take(throttleKey('mail', 'source', source), perSource, sourceWindowSeconds);
    if (!bySource.taken) return refused(bySource.resetInSeconds);
    const byAddress = await this.counters.take(throttleKey('mail', 'address', email), perAddress, addressWindowSeconds);
    if (!byAddress.taken) return refused(byAddress.resetInSeconds);
    return { allowed: true };
  }
}

function refused(retryAfterSeconds: number): ThrottleDecision {
  return { allowed: false, retryAfterSeconds: Math.max(1, retryAfterSeconds) };
}
