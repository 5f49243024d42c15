import { type CounterState, type Counters } from '@fed/bus';
import { type GatewayPrincipal } from '../access/gateway-principal';
import { GatewayError } from '../http/gateway-error';

const DAY_SECONDS = 86_400;
/** How long a key's counts read from Redis may stand in for a fresh read. */
const FRESH_MS = 1000;

interface KeyCounts {
  minute: number;
  day: string;
  requests: number;
  tokens: number;
  spendMicroUsd: number;
  readAt: number;
}

/**
 * Requests and tokens per minute (fixed, clock-aligned windows) and a hard daily budget per key,
 * on the bus's Counters (Redis across instances). Each admitted request is counted in Redis, and
 * the key's token and spend counters are read in the same round trip. That round trip is awaited
 * only when this instance has no recent counts for the key (none, or older than a second, or of
 * another minute); otherwise the decision is taken on the counts from the previous round trip,
 * plus the requests admitted here since, while this request's round trip refreshes them in the
 * background. A model call therefore does not wait for Redis in steady traffic; the price is that
 * instances may together admit, within one round trip, a few requests over a limit. Tokens and
 * spend are added when a call has ended, so concurrent calls can overshoot a token or spend limit
 * by what they spend together.
 */
export class UsageLimits {
  private readonly counts = new Map<string, KeyCounts>();

  constructor(
    private readonly counters: Counters,
    private readonly now: () => number = Date.now,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  async admit(principal: GatewayPrincipal): Promise<void> {
    const { virtualKeyId: id, rpmLimit, tpmLimit, dailyBudgetMicroUsd } = principal;
    if (id === null || (rpmLimit === null && tpmLimit === null && dailyBudgetMicroUsd === null)) return;
    const now = this.now();
    const minute = Math.floor(now / 60_000);
    const day = dayOf(now);
    const known = this.counts.get(id);
    const refresh = this.read(principal, minute, day, now);
    let counts: KeyCounts;
    if (known && known.minute === minute && known.day === day && now - known.readAt < FRESH_MS) {
      refresh.catch(this.onError);
      known.requests++;
      counts = known;
    } else {
      counts = await refresh;
    }
    this.check(principal, counts, now);
  }

  /** Adds a finished call's tokens and cost (US dollars) to the key's counters. */
  async record(principal: GatewayPrincipal, tokens: number, costUsd: number | null): Promise<void> {
    const id = principal.virtualKeyId;
    if (id === null) return;
    const now = this.now();
    const minute = Math.floor(now / 60_000);
    const work: Promise<unknown>[] = [];
    const known = this.counts.get(id);
    if (principal.tpmLimit !== null && tokens > 0) {
      if (known?.minute === minute) known.tokens += tokens;
      work.push(this.counters.add(`gw:tpm:${id}:${minute}`, tokens, 60));
    }
    const microUsd = costUsd === null ? 0 : Math.round(costUsd * 1e6);
    if (principal.dailyBudgetMicroUsd !== null && microUsd > 0) {
      if (known?.day === dayOf(now)) known.spendMicroUsd += microUsd;
      work.push(this.counters.add(`gw:spend:${id}:${dayOf(now)}`, microUsd, 2 * DAY_SECONDS));
    }
    await Promise.all(work);
  }

  /** Counts this request in Redis and reads the key's counters, in one round trip. */
  private async read(principal: GatewayPrincipal, minute: number, day: string, now: number): Promise<KeyCounts> {
    const id = principal.virtualKeyId as string;
    const [requests, [tokens, spend]] = await Promise.all([
      principal.rpmLimit === null ? undefined : this.counters.hit(`gw:rpm:${id}:${minute}`, 60),
      this.counters.peekMany([`gw:tpm:${id}:${minute}`, `gw:spend:${id}:${day}`]),
    ]);
    const counts: KeyCounts = {
      minute,
      day,
      requests: (requests as CounterState | undefined)?.count ?? 0,
      tokens: tokens?.count ?? 0,
      spendMicroUsd: spend?.count ?? 0,
      readAt: now,
    };
    const known = this.counts.get(id);
    if (known && known.minute === minute && known.day === day) {
      // Never lower what this instance already admitted or recorded within the window.
      counts.requests = Math.max(counts.requests, known.requests);
      counts.tokens = Math.max(counts.tokens, known.tokens);
      counts.spendMicroUsd = Math.max(counts.spendMicroUsd, known.spendMicroUsd);
      Object.assign(known, counts);
      return known;
    }
    if (this.counts.size >= 10_000) this.counts.clear();
    this.counts.set(id, counts);
    return counts;
  }

  private check(principal: GatewayPrincipal, counts: KeyCounts, now: number): void {
    const { rpmLimit, tpmLimit, dailyBudgetMicroUsd } = principal;
    const secondsToNextMinute = Math.max(1, Math.ceil(((counts.minute + 1) * 60_000 - now) / 1000));
    if (dailyBudgetMicroUsd !== null && counts.spendMicroUsd >= dailyBudgetMicroUsd) {
      const secondsToMidnight = Math.max(1, Math.ceil((Math.ceil(now / 86_400_000) * 86_400_000 - now) / 1000));
      throw new GatewayError(
        'quota',
        'daily_budget_exceeded',
        `the daily budget of this key (${(dailyBudgetMicroUsd / 1e6).toFixed(2)} USD) is spent; it renews at 00:00 UTC`,
        { 'retry-after': String(secondsToMidnight) },
      );
    }
    if (rpmLimit !== null && counts.requests > rpmLimit) {
      throw new GatewayError('rate_limit', 'rate_limit_exceeded', `this key may send ${rpmLimit} requests per minute`, {
        'retry-after': String(secondsToNextMinute),
        'x-ratelimit-limit-requests': String(rpmLimit),
        'x-ratelimit-remaining-requests': '0',
      });
    }
    if (tpmLimit !== null && counts.tokens >= tpmLimit) {
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
}

function dayOf(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}
