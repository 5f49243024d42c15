import { type Counters } from '@fed/bus';
import { type GatewayPrincipal } from '../access/gateway-principal';
import { GatewayError } from '../http/gateway-error';

const DAY_SECONDS = 86_400;

/**
 * Requests and tokens per minute (fixed, clock-aligned windows) and a hard daily budget per key,
 * on the bus's Counters (Redis across instances). The check is one round trip: the request is
 * counted and the token and spend counters read in the same write to Redis. Tokens and spend are
 * added when the call has ended (off the call's path), so the limit that refuses is the one
 * reached by calls already finished: concurrent calls can overshoot by what they spend together.
 */
export class UsageLimits {
  constructor(
    private readonly counters: Counters,
    private readonly now: () => number = Date.now,
  ) {}

  async admit(principal: GatewayPrincipal): Promise<void> {
    const { virtualKeyId: id, rpmLimit, tpmLimit, dailyBudgetMicroUsd } = principal;
    if (id === null || (rpmLimit === null && tpmLimit === null && dailyBudgetMicroUsd === null)) return;
    const now = this.now();
    const minute = Math.floor(now / 60_000);
    const secondsToNextMinute = Math.max(1, Math.ceil(((minute + 1) * 60_000 - now) / 1000));
    const [requests, [tokens, spend]] = await Promise.all([
      rpmLimit === null ? undefined : this.counters.hit(`gw:rpm:${id}:${minute}`, 60),
      this.counters.peekMany([`gw:tpm:${id}:${minute}`, `gw:spend:${id}:${dayOf(now)}`]),
    ]);
    if (dailyBudgetMicroUsd !== null && (spend?.count ?? 0) >= dailyBudgetMicroUsd) {
      const secondsToMidnight = Math.max(1, Math.ceil((Math.ceil(now / 86_400_000) * 86_400_000 - now) / 1000));
      throw new GatewayError(
        'quota',
        'daily_budget_exceeded',
        `the daily budget of this key (${(dailyBudgetMicroUsd / 1e6).toFixed(2)} USD) is spent; it renews at 00:00 UTC`,
        { 'retry-after': String(secondsToMidnight) },
      );
    }
    if (rpmLimit !== null && requests && requests.count > rpmLimit) {
      throw new GatewayError('rate_limit', 'rate_limit_exceeded', `this key may send ${rpmLimit} requests per minute`, {
        'retry-after': String(secondsToNextMinute),
        'x-ratelimit-limit-requests': String(rpmLimit),
        'x-ratelimit-remaining-requests': '0',
      });
    }
    if (tpmLimit !== null && (tokens?.count ?? 0) >= tpmLimit) {
      throw new GatewayError(
        'rate_limit',
        'tokens_rate_limit_exceeded',
        `this key may use ${tpmLimit} tokens per minute`,
        {
          'retry-after': String(secondsToNextMinute),
          'x-ratelimit-limit-tokens': String(tpmLimit),
          'x-ratelimit-remaining-tokens': '0',
        },
      );
    }
  }

  /** Adds a finished call's tokens and cost (US dollars) to the key's counters. */
  async record(principal: GatewayPrincipal, tokens: number, costUsd: number | null): Promise<void> {
    const id = principal.virtualKeyId;
    if (id === null) return;
    const now = this.now();
    const work: Promise<unknown>[] = [];
    if (principal.tpmLimit !== null && tokens > 0) {
      work.push(this.counters.add(`gw:tpm:${id}:${Math.floor(now / 60_000)}`, tokens, 60));
    }
    const microUsd = costUsd === null ? 0 : Math.round(costUsd * 1e6);
    if (principal.dailyBudgetMicroUsd !== null && microUsd > 0) {
      work.push(this.counters.add(`gw:spend:${id}:${dayOf(now)}`, microUsd, 2 * DAY_SECONDS));
    }
    await Promise.all(work);
  }
}

function dayOf(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}
