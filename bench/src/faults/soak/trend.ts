/** The least-squares line through (x, y) points: slope and intercept; slope 0 for fewer than two points. */
export function leastSquares(points: readonly { x: number; y: number }[]): { slope: number; intercept: number } {
  const n = points.length;
  if (n < 2) return { slope: 0, intercept: points[0]?.y ?? 0 };
  const meanX = points.reduce((sum, p) => sum + p.x, 0) / n;
  const meanY = points.reduce((sum, p) => sum + p.y, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const p of points) {
    covariance += (p.x - meanX) * (p.y - meanY);
    variance += (p.x - meanX) ** 2;
  }
  const slope = variance === 0 ? 0 : covariance / variance;
  return { slope, intercept: meanY - slope * meanX };
}

export interface GrowthLimit {
  /** Allowed growth over the judged window, as a share of the window's mean (0.05 = 5 %). */
  relative: number;
  /** ... or this much in the metric's unit, whichever is larger (small values are noisy). */
  absolute: number;
}

export interface TrendVerdict {
  /** Fitted growth per minute over the judged window. */
  slopePerMinute: number;
  /** Fitted growth over the whole judged window. */
  growth: number;
  mean: number;
  /** The last quarter's level (its 90th percentile) minus the third quarter's: still rising at the end, or not. */
  quarterRise: number;
  allowed: number;
  flat: boolean;
}

/** The nearest-rank percentile of some values (0 for none). */
function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/**
 * Whether a series sampled over time grows. The first half is warm-up (caches, pools and JIT filling); a
 * series grows when both
 * - the least-squares line over its second half rises, over that half, by more than the limit, and
 * - it still rises at the end: the last quarter's level (90th percentile) is above the third quarter's by
 *   more than half the limit (a steady rise of the limit over the half puts half of it between the two).
 * A leak does both. A bounded sawtooth (memory given back to the system, then refilled to the same
 * ceiling) can tilt the line alone, depending on where in its cycle the judged half starts; percentiles of
 * the judged half's own quarters are not moved by a spike, nor by anything the warm-up did.
 */
export function judgeTrend(samples: readonly { atSeconds: number; value: number }[], limit: GrowthLimit): TrendVerdict {
  const half = Math.floor(samples.length / 2);
  const judged = samples.slice(half);
  const points = judged.map((s) => ({ x: s.atSeconds / 60, y: s.value }));
  const { slope } = leastSquares(points);
  const span = points.length > 1 ? (points.at(-1)?.x as number) - (points[0]?.x as number) : 0;
  const mean = points.reduce((sum, p) => sum + p.y, 0) / Math.max(1, points.length);
  const growth = slope * span;
  const quarter = half + Math.floor(judged.length / 2);
  const third = samples.slice(half, quarter).map((s) => s.value);
  const last = samples.slice(quarter).map((s) => s.value);
  const quarterRise = third.length > 0 && last.length > 0 ? percentile(last, 90) - percentile(third, 90) : growth;
  const allowed = Math.max(limit.relative * mean, limit.absolute);
  return {
    slopePerMinute: slope,
    growth,
    mean,
    quarterRise,
    allowed,
    flat: growth <= allowed || quarterRise <= allowed / 2,
  };
}
