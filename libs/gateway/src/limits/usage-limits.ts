import { type Counters } from '@fed/bus';
import { type GatewayPrincipal } from '../access/gateway-principal';
import { GatewayError } from '../http/gateway-error';

const DAY_SECONDS = 86_400;
const FRESH_MS = 1000;
const SYNC_MS = 100;

interface KeyCounts {
  principal: GatewayPrincipal;
  minute: number;
  day: string;
  /** Totals across instances as last read, plus what this instance counted since. */
  requests: number;
  tokens: number;
  spendMicroUsd: number;
  pendingRequests: number;
  pendingTokens: number;
  pendingSpend: number;
  readAt: number;
}

/**
 * A key's first request (or first after a quiet second) counts in Redis in one awaited round trip; after
 * that each instance decides on those counts plus its own and syncs all keys every 100 ms, so steady
 * traffic never waits for Redis. The price: instances together may admit a little over a limit, and
 * concurrent calls can overshoot a token or spend limit, known only when calls end.
 */
export class UsageLimits {
  private readonly counts = new Map<string, KeyCounts>();
  private readonly timer: NodeJS.Timeout;
  private syncing: Promise<void> | null = null;

  constructor(
    private readonly counters: Counters,
    private readonly now: () => number = Date.now,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {
    this.timer = setInterval(() => void this.sync(), SYNC_MS);
    this.timer.unref();
  }

  async admit(principal: GatewayPrincipal): Promise<void> {
    const { virtualKeyId: id, rpmLimit, tpmLimit, dailyBudgetMicroUsd } = principal;
    if (id === null || (rpmLimit === null && tpmLimit === null && dailyBudgetMicroUsd === null)) return;
    const now = this.now();
    const minute = Math.floor(now / 60_000);
    const day = dayOf(now);
    let counts = this.counts.get(id);
    if (counts && counts.minute === minute && counts.day === day && now - counts.readAt < FRESH_MS) {
      counts.principal = principal;
      counts.requests++;
      counts.pendingRequests++;
    } else {
      counts = await this.firstRead(principal, minute, day, now);
    }
    this.check(principal, counts, now);
  }

  /** Cost in US dollars. */
  record(principal: GatewayPrincipal, tokens: number, costUsd: number | null): void {
    const id = principal.virtualKeyId;
    if (id === null) return;
    const now = this.now();
    const counts = this.counts.get(id);
    const microUsd = costUsd === null ? 0 : Math.round(costUsd * 1e6);
    if (counts && counts.minute === Math.floor(now / 60_000) && counts.day === dayOf(now)) {
      if (principal.tpmLimit !== null) {
        counts.tokens += tokens;
        counts.pendingTokens += tokens;
      }
      if (principal.dailyBudgetMicroUsd !== null) {
        counts.spendMicroUsd += microUsd;
        counts.pendingSpend += microUsd;
      }
      return;
    }
    // No counts of this window here (a call that spanned a minute): straight to the shared counters.
    const work: Promise<unknown>[] = [];
    if (principal.tpmLimit !== null && tokens > 0)
      work.push(this.counters.add(`gw:tpm:${id}:${Math.floor(now / 60_000)}`, tokens, 60));
    if (principal.dailyBudgetMicroUsd !== null && microUsd > 0)
      work.push(this.counters.add(`gw:spend:${id}:${dayOf(now)}`, microUsd, 2 * DAY_SECONDS));
    Promise.all(work).catch(this.onError);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.syncing;
    await this.sync();
  }

  private async firstRead(principal: GatewayPrincipal, minute: number, day: string, now: number): Promise<KeyCounts> {
    const id = principal.virtualKeyId as string;
    const [requests, [tokens, spend]] = await Promise.all([
      this.counters.hit(`gw:rpm:${id}:${minute}`, 60),
      this.counters.peekMany([`gw:tpm:${id}:${minute}`, `gw:spend:${id}:${day}`]),
    ]);
    const known = this.counts.get(id);
    if (known && known.minute === minute && known.day === day) {
      // Counts of this window are here already: the shared totals, plus what is not shared yet.
      known.requests = Math.max(known.requests + 1, requests.count + known.pendingRequests);
      known.tokens = Math.max(known.tokens, (tokens?.count ?? 0) + known.pendingTokens);
      known.spendMicroUsd = Math.max(known.spendMicroUsd, (spend?.count ?? 0) + known.pendingSpend);
      known.readAt = now;
      return known;
    }
    if (known) this.flushOld(known);
    if (this.counts.size >= 10_000) this.counts.clear();
    const counts: KeyCounts = {
      principal,
      minute,
      day,
      requests: requests.count,
      tokens: tokens?.count ?? 0,
      spendMicroUsd: spend?.count ?? 0,
      pendingRequests: 0,
      pendingTokens: 0,
      pendingSpend: 0,
      readAt: now,
    };
    this.counts.set(id, counts);
    return counts;
  }

  private sync(): Promise<void> {
    if (this.syncing || this.counts.size === 0) return this.syncing ?? Promise.resolve();
    this.syncing = this.syncAll()
      .catch(this.onError)
      .finally(() => {
        this.syncing = null;
      });
    return this.syncing;
  }

  private async syncAll(): Promise<void> {
    const now = this.now();
    const work: Promise<void>[] = [];
    for (const [id, counts] of this.counts) {
      const idle = counts.pendingRequests === 0 && counts.pendingTokens === 0 && counts.pendingSpend === 0;
      if (idle) {
        // Quiet keys are forgotten; their next request reads again.
        if (now - counts.readAt > 10 * FRESH_MS) this.counts.delete(id);
        continue;
      }
      work.push(this.syncKey(id, counts, now));
    }
    await Promise.all(work);
  }

  private async syncKey(id: string, counts: KeyCounts, now: number): Promise<void> {
    const { minute, day } = counts;
    const [requests, tokens, spend] = [counts.pendingRequests, counts.pendingTokens, counts.pendingSpend];
    counts.pendingRequests = counts.pendingTokens = counts.pendingSpend = 0;
    const rpmKey = `gw:rpm:${id}:${minute}`;
    const tpmKey = `gw:tpm:${id}:${minute}`;
    const spendKey = `gw:spend:${id}:${day}`;
    try {
      const [afterRequests, afterTokens, afterSpend] = await Promise.all([
        requests > 0 ? this.counters.add(rpmKey, requests, 60) : this.counters.peek(rpmKey),
        tokens > 0 ? this.counters.add(tpmKey, tokens, 60) : this.counters.peek(tpmKey),
        spend > 0 ? this.counters.add(spendKey, spend, 2 * DAY_SECONDS) : this.counters.peek(spendKey),
      ]);
      if (this.counts.get(id) !== counts || counts.minute !== minute) return;
      // Plus what was counted here during the read.
      counts.requests = afterRequests.count + counts.pendingRequests;
      counts.tokens = afterTokens.count + counts.pendingTokens;
      counts.spendMicroUsd = afterSpend.count + counts.pendingSpend;
      counts.readAt = now;
    } catch (error) {
      // Not lost: added again at the next sync.
      counts.pendingRequests += requests;
      counts.pendingTokens += tokens;
      counts.pendingSpend += spend;
      throw error;
    }
  }

  private flushOld(counts: KeyCounts): void {
    const id = counts.principal.virtualKeyId as string;
    const work: Promise<unknown>[] = [];
    if (counts.pendingRequests > 0)
      work.push(this.counters.add(`gw:rpm:${id}:${counts.minute}`, counts.pendingRequests, 60));
    if (counts.pendingTokens > 0)
      work.push(this.counters.add(`gw:tpm:${id}:${counts.minute}`, counts.pendingTokens, 60));
    if (counts.pendingSpend > 0)
      work.push(this.counters.add(`gw:spend:${id}:${counts.day}`, counts.pendingSpend, 2 * DAY_SECONDS));
    counts.pendingRequests = counts.pendingTokens = counts.pendingSpend = 0;
    Promise.all(work).catch(this.onError);
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

// Formatted once a day, not per call.
let formattedDay = { number: Number.NaN, text: '' };

function dayOf(now: number): string {
  const number = Math.floor(now / 86_400_000);
  if (number !== formattedDay.number) {
    formattedDay = { number, text: new Date(number * 86_400_000).toISOString().slice(0, 10) };
  }
  return formattedDay.text;
}
