import { type Counters } from '@fed/bus';
import { IGNORED_SIGN_IN_EVENTS, type SignInEvents } from './sign-in-events';
import { throttleKey } from './throttle-key';

export interface LoginThrottlePolicy {
  windowSeconds: number;
  /** Attempts of one account from one source that lock that pair for the rest of the window. */
  lockAfterPerSource: number;
  /** Failures of one account from all sources after which untrusted attempts on it are held back. */
  slowAfterPerAccount: number;
  maxHoldSeconds: number;
  /** Bounds the time an attack can hold an account. */
  maxHoldsPerWindow: number;
}

// 1 + 2 + 4 + 8 + 16 + 32 + 60 + 60 = 183 s held in 15 minutes at most.
export const defaultLoginThrottlePolicy: LoginThrottlePolicy = {
  windowSeconds: 900,
  lockAfterPerSource: 5,
  slowAfterPerAccount: 10,
  maxHoldSeconds: 60,
  maxHoldsPerWindow: 8,
};

/** A user found by the login (e-mail and username share one budget), else the login's text. */
export type LoginAccount = { userId: string } | { unknownLogin: string };

/** A device cookie's nonce is a trusted source: account holds never apply to it. */
export type LoginSource = { address: string } | { deviceNonce: string };

export type LoginAttempt<T> = { refused: true; retryAfterSeconds: number } | { refused: false; user: T | null };

/**
 * The attempt is reserved atomically before the password check (argon2 is slow, so a separate read would let
 * concurrent guesses all pass). Failures from many sources only briefly hold the account for untrusted
 * sources, a bounded number of times, so no botnet can lock the real user out.
 */
export class LoginThrottle {
  constructor(
    private readonly counters: Counters,
    private readonly policy: LoginThrottlePolicy = defaultLoginThrottlePolicy,
    private readonly events: SignInEvents = IGNORED_SIGN_IN_EVENTS,
  ) {}

  async attempt<T>(
    account: LoginAccount,
    source: LoginSource,
    checkPassword: () => Promise<T | null>,
  ): Promise<LoginAttempt<T>> {
    const accountValues = 'userId' in account ? ['user', account.userId] : ['login', account.unknownLogin];
    const trusted = 'deviceNonce' in source;
    const pairKey = trusted
      ? throttleKey('login', 'pair', ...accountValues, 'device', source.deviceNonce)
      : throttleKey('login', 'pair', ...accountValues, 'address', source.address);
    if (!trusted) {
      const hold = await this.counters.peek(throttleKey('login', 'hold', ...accountValues));
      if (hold.count > 0) return this.refused(hold.resetInSeconds);
    }
    const { lockAfterPerSource, windowSeconds } = this.policy;
    const reservation = await this.counters.take(pairKey, lockAfterPerSource, windowSeconds);
    if (!reservation.taken) return this.refused(reservation.resetInSeconds);
    let user: T | null;
    try {
      user = await checkPassword();
    } catch (error) {
      // Storage down: an outage must not count as a failure and lock anyone out.
      await this.counters.release(pairKey).catch(() => undefined);
      throw error;
    }
    // A wrong password keeps its reservation as the failure; a right one clears this source's.
    if (user === null) {
      this.events.failed('invalid_credentials');
      if (reservation.count >= lockAfterPerSource) this.events.lockedOut();
      await this.failedOn(accountValues);
    } else await this.counters.reset(pairKey);
    return { refused: false, user };
  }

  private refused(retryAfterSeconds: number): LoginAttempt<never> {
    this.events.failed('throttled');
    return { refused: true, retryAfterSeconds: Math.max(1, retryAfterSeconds) };
  }

  private async failedOn(accountValues: string[]): Promise<void> {
    const { windowSeconds, slowAfterPerAccount, maxHoldSeconds, maxHoldsPerWindow } = this.policy;
    const failures = await this.counters.hit(throttleKey('login', 'account', ...accountValues), windowSeconds);
    if (failures.count < slowAfterPerAccount) return;
    const holds = await this.counters.take(
      throttleKey('login', 'holds', ...accountValues),
      maxHoldsPerWindow,
      windowSeconds,
    );
    if (!holds.taken) return;
    this.events.lockedOut();
    const holdSeconds = Math.min(2 ** (holds.count - 1), maxHoldSeconds);
    await this.counters.extend(throttleKey('login', 'hold', ...accountValues), holdSeconds);
  }
}
