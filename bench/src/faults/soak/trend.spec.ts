import { judgeTrend, leastSquares } from './trend';

const series = (values: number[]) => values.map((value, i) => ({ atSeconds: i * 10, value }));

describe('soak trend', () => {
  it('fits the least-squares line through points', () => {
    expect(
      leastSquares([
        { x: 0, y: 1 },
        { x: 1, y: 3 },
        { x: 2, y: 5 },
      ]),
    ).toEqual({ slope: 2, intercept: 1 });
    expect(leastSquares([{ x: 0, y: 4 }])).toEqual({ slope: 0, intercept: 4 });
  });

  it('calls a series flat when its second half does not grow beyond the limit, whatever the warm-up did', () => {
    const warmUpThenFlat = series([100, 150, 180, 200, 201, 199, 200, 202, 198, 200]);
    expect(judgeTrend(warmUpThenFlat, { relative: 0.05, absolute: 1 }).flat).toBe(true);
  });

  it('calls a series growing when its second half grows beyond the limit', () => {
    // 2 units a sample (12 a minute) over the second half: 10 units of growth on a mean of about 210.
    const leaking = series([200, 202, 204, 206, 208, 210, 212, 214, 216, 218, 220]);
    const verdict = judgeTrend(leaking, { relative: 0.02, absolute: 1 });
    expect(verdict.slopePerMinute).toBeCloseTo(12);
    expect(verdict.growth).toBeCloseTo(10);
    expect(verdict.quarterRise).toBe(6);
    expect(verdict.flat).toBe(false);
    expect(judgeTrend(leaking, { relative: 0.1, absolute: 1 }).flat).toBe(true);
  });

  it('calls a bounded sawtooth flat: given back where the judged half starts, refilled to the same ceiling', () => {
    // Rises to 400 in the first half, drops to 350 right where the judged half starts, refills to 400 and stays.
    const sawtooth = series([300, 350, 380, 395, 400, 400, 400, 400, 350, 365, 380, 395, 400, 400, 401, 400]);
    const verdict = judgeTrend(sawtooth, { relative: 0.05, absolute: 10 });
    expect(verdict.growth).toBeGreaterThan(verdict.allowed);
    expect(verdict.quarterRise).toBeLessThanOrEqual(verdict.allowed / 2);
    expect(verdict.flat).toBe(true);
  });

  it('calls a leak growing whatever the warm-up or a spike did before it', () => {
    // A spike to 500 in the first half, then +10 a sample from 310.
    const leak = series([300, 500, 310, 320, 330, 340, 350, 360, 370, 380, 390, 400]);
    expect(judgeTrend(leak, { relative: 0.05, absolute: 10 }).flat).toBe(false);
    // An overshoot in the warm-up, then a slow leak of +2 a sample.
    const overshoot = series([300, 470, 350, 352, 354, 356, 358, 360, 362, 364, 366, 368, 370, 372, 374, 376]);
    const verdict = judgeTrend(overshoot, { relative: 0.01, absolute: 1 });
    expect(verdict.flat).toBe(false);
  });

  it('uses the absolute limit for small, noisy values', () => {
    expect(judgeTrend(series([3, 3, 3, 4, 5, 6]), { relative: 0.05, absolute: 5 }).flat).toBe(true);
  });
});
