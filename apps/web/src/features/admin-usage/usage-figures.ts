import { type UsageDay, type UsageFigures, type UsageReport } from './api';

/** Costs are summed exactly, in units of 10^-8 USD (the gateway log's scale), never as floats. */
const SCALE = 100_000_000n;

export function costUnits(text: string): bigint {
  const negative = text.startsWith('-');
  const [whole = '0', fraction = ''] = (negative ? text.slice(1) : text).split('.');
  const units = BigInt(whole || '0') * SCALE + BigInt(fraction.padEnd(8, '0').slice(0, 8) || '0');
  return negative ? -units : units;
}

export function costText(units: bigint): string {
  const size = units < 0n ? -units : units;
  return `${units < 0n ? '-' : ''}${size / SCALE}.${(size % SCALE).toString().padStart(8, '0')}`;
}

export function addCosts(...texts: string[]): string {
  return costText(texts.reduce((sum, text) => sum + costUnits(text), 0n));
}

const DAY_MS = 86_400_000;
export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const msOf = (day: string) => Date.parse(`${day}T00:00:00.000Z`);

/** Every UTC day from `from` to `to`, both included. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let at = msOf(from); at <= msOf(to); at += DAY_MS) days.push(dayOf(at));
  return days;
}

/** A chart's group: one of the top groups, or every other group together. */
export interface ChartGroup {
  key: string;
  /** The API's group; undefined for "other". */
  group?: string | null;
  other: boolean;
}

export interface ChartDay {
  day: string;
  /** Per chart group, in the groups' order: the exact cost text and the tokens. */
  values: { costUsd: string; totalTokens: number }[];
}

export interface UsageChartData {
  groups: ChartGroup[];
  days: ChartDay[];
}

const keyOf = (group: string | null) => (group === null ? '\u0000none' : `g:${group}`);

/**
 * The charts' series: the `top` groups of most spend (then tokens, then requests) over the range, and the rest
 * summed as "other"; every day of the range, days without usage as zeros.
 */
export function chartData(report: UsageReport, top: number): UsageChartData {
  const ranked = [...report.groups].sort((a, b) => {
    const cost = costUnits(b.costUsd) - costUnits(a.costUsd);
    if (cost !== 0n) return cost > 0n ? 1 : -1;
    return b.totalTokens - a.totalTokens || b.requests - a.requests;
  });
  const shown = ranked.slice(0, ranked.length > top + 1 ? top : ranked.length);
  const groups: ChartGroup[] = shown.map((g) => ({ key: keyOf(g.group), group: g.group, other: false }));
  if (shown.length < ranked.length) groups.push({ key: 'other', other: true });
  const index = new Map(groups.map((g, n) => [g.key, n]));
  const otherIndex = groups.length - 1;
  const byDay = new Map<string, UsageDay[]>();
  for (const row of report.days) byDay.set(row.day, [...(byDay.get(row.day) ?? []), row]);
  const days = daysBetween(report.from, report.to).map((day) => {
    const units = groups.map(() => 0n);
    const tokens = groups.map(() => 0);
    for (const row of byDay.get(day) ?? []) {
      const at = index.get(keyOf(row.group)) ?? otherIndex;
      units[at]! += costUnits(row.costUsd);
      tokens[at]! += row.totalTokens;
    }
    return { day, values: units.map((u, n) => ({ costUsd: costText(u), totalTokens: tokens[n]! })) };
  });
  return { groups, days };
}

export type { UsageFigures };
