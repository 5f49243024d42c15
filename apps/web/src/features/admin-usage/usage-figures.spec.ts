import { type UsageReport } from './api';
import { addCosts, chartData, daysBetween } from './usage-figures';

const figures = (costUsd: string, totalTokens: number) => ({
  requests: 1,
  errors: 0,
  inputTokens: totalTokens,
  outputTokens: 0,
  totalTokens,
  cachedTokens: 0,
  costUsd,
});

describe('the usage charts’ figures', () => {
  it('adds costs exactly, where floats would not (0.1 + 0.2, and a 10^-8 USD cost)', () => {
    expect(addCosts('0.10000000', '0.20000000')).toBe('0.30000000');
    expect(addCosts('0.30000000', '0.00000001', '1')).toBe('1.30000001');
  });

  it('counts every UTC day of the range, both ends included, across a month’s end', () => {
    expect(daysBetween('2026-02-27', '2026-03-02')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02']);
  });

  it('keeps the groups of most spend and sums the rest as other, with zeros on days without usage', () => {
    const report: UsageReport = {
      from: '2026-05-01',
      to: '2026-05-03',
      groupBy: 'model',
      tenantId: null,
      days: [
        { day: '2026-05-01', group: 'a', ...figures('0.10000000', 10) },
        { day: '2026-05-01', group: 'b', ...figures('0.20000000', 20) },
        { day: '2026-05-03', group: 'c', ...figures('0.00000001', 5) },
        { day: '2026-05-03', group: null, ...figures('0.00000002', 7) },
      ],
      groups: [
        { group: 'a', ...figures('0.10000000', 10) },
        { group: 'b', ...figures('0.20000000', 20) },
        { group: 'c', ...figures('0.00000001', 5) },
        { group: null, ...figures('0.00000002', 7) },
      ],
      totals: figures('0.30000003', 42),
    };
    const data = chartData(report, 2);
    expect(data.groups.map((g) => (g.other ? 'other' : g.group))).toEqual(['b', 'a', 'other']);
    expect(data.days.map((d) => d.day)).toEqual(['2026-05-01', '2026-05-02', '2026-05-03']);
    expect(data.days[1]!.values.every((v) => v.costUsd === '0.00000000' && v.totalTokens === 0)).toBe(true);
    expect(data.days[2]!.values[2]).toEqual({ costUsd: '0.00000003', totalTokens: 12 });
    // One group more than the top is shown by its name, not folded into "other".
    expect(chartData(report, 3).groups.some((g) => g.other)).toBe(false);
  });
});
