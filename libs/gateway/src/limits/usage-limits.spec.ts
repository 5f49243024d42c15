import { MemoryCounters } from '@fed/bus';
import { type GatewayPrincipal } from '../access/gateway-principal';
import { GatewayError } from '../http/gateway-error';
import { UsageLimits } from './usage-limits';

const key = (limits: Partial<GatewayPrincipal>): GatewayPrincipal => ({
  kind: 'api-key',
  virtualKeyId: `key-${Math.random()}`,
  label: 'test',
  tenantId: null,
  allowedModels: null,
  rpmLimit: null,
  tpmLimit: null,
  dailyBudgetMicroUsd: null,
  networks: null,
  expiresAt: null,
  ...limits,
});

const refusal = async (work: Promise<unknown>) => {
  try {
    await work;
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  return undefined;
};

describe('UsageLimits', () => {
  let counters: MemoryCounters;
  let now: number;
  let limits: UsageLimits;

  beforeEach(() => {
    counters = new MemoryCounters(() => now);
    now = Date.UTC(2026, 10, 23, 12, 0, 10);
    limits = new UsageLimits(counters, () => now);
  });
  afterEach(async () => {
    await limits.close();
    await counters.close();
  });

  it('admits requests up to the per-minute limit, then refuses with a retryable 429 until the next minute', async () => {
    const principal = key({ rpmLimit: 3 });
    for (let i = 0; i < 3; i++) await limits.admit(principal);
    const refused = await refusal(limits.admit(principal));
    expect(refused).toMatchObject({ kind: 'rate_limit', code: 'rate_limit_exceeded', status: 429 });
    expect(refused?.headers['retry-after']).toBe('50');
    now += 50_000;
    await expect(limits.admit(principal)).resolves.toBeUndefined();
  });

  it('counts every admitted request in the shared counters, also those decided without waiting for them', async () => {
    const principal = key({ rpmLimit: 100 });
    await Promise.all(Array.from({ length: 20 }, () => limits.admit(principal)));
    await limits.close();
    const minute = Math.floor(now / 60_000);
    expect((await counters.peek(`gw:rpm:${principal.virtualKeyId}:${minute}`)).count).toBe(20);
  });

  it('refuses once the tokens of the minute are used, from what finished calls recorded', async () => {
    const principal = key({ tpmLimit: 1000 });
    await limits.admit(principal);
    limits.record(principal, 1000, null);
    expect(await refusal(limits.admit(principal))).toMatchObject({ code: 'tokens_rate_limit_exceeded' });
  });

  it('refuses a spent daily budget with x-should-retry false (a quota) until midnight UTC, as another instance recorded it', async () => {
    const principal = key({ dailyBudgetMicroUsd: 50_000 });
    await limits.admit(principal);
    const elsewhere = new UsageLimits(counters, () => now);
    elsewhere.record(principal, 10, 0.05);
    await elsewhere.close();
    now += 1500;
    const refused = await refusal(limits.admit(principal));
    expect(refused).toMatchObject({ kind: 'quota', code: 'daily_budget_exceeded', status: 429 });
    expect(Number(refused?.headers['retry-after'])).toBe(Math.ceil(12 * 3600 - 11.5));
  });

  it('does nothing for a principal without limits', async () => {
    const spy = jest.spyOn(counters, 'peekMany');
    await limits.admit(key({ virtualKeyId: null }));
    await limits.admit(key({}));
    expect(spy).not.toHaveBeenCalled();
  });
});
