import { describe, expect, it } from 'vitest';
import { cohensD, meanAndStddev, welchTTest } from './welch.ts';
import { mannWhitneyU } from './mann-whitney.ts';
import { compareLatencies } from './compare.ts';

// Reference values: scipy 1.17.1 on this machine (independent of our code and of stdlib):
//   scipy.stats.ttest_ind(a, b, equal_var=False)            -> Welch's t, df, p
//   scipy.stats.mannwhitneyu(a, b, method='asymptotic')     -> U of a, p (tie + continuity corrections)
// and Cohen's d by hand with numpy (pooled variance, ddof=1). The first Welch case is also the
// textbook one: x = 1..5, y = 2, 4, ..., 10 gives t = -3/sqrt(2.5) and df = 6.25/1.0625 exactly.
const A1 = [1, 2, 3, 4, 5];
const B1 = [2, 4, 6, 8, 10];
const A2 = [19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0];
const B2 = [28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7, 27.6, 20.6, 13.7, 23.2, 17.5, 20.6, 18.0, 23.9, 21.6, 24.3, 20.4, 23.9, 13.3];

describe('mean and standard deviation', () => {
  it('gives the sample standard deviation (n - 1)', () => {
    const { mean, stddev } = meanAndStddev([2, 4, 4, 4, 5, 5, 7, 9]);
    expect(mean).toBe(5);
    expect(stddev).toBeCloseTo(Math.sqrt(32 / 7), 12);
  });
});

describe("Welch's t-test", () => {
  it('matches the textbook case and scipy on two small samples', () => {
    const r = welchTTest(A1, B1);
    // Our t is candidate minus baseline (b - a): scipy's ttest_ind(a, b) is a - b.
    expect(r.t).toBeCloseTo(3 / Math.sqrt(2.5), 10);
    expect(r.df).toBeCloseTo(5.882352941176471, 10);
    expect(r.pValue).toBeCloseTo(0.10753119493062728, 8);
  });

  it('matches scipy on unequal sizes and variances', () => {
    const r = welchTTest(A2, B2);
    expect(r.t).toBeCloseTo(2.225512039969852, 9);
    expect(r.df).toBeCloseTo(24.524634944257343, 8);
    expect(r.pValue).toBeCloseTo(0.035484530830010394, 8);
  });

  it('says p = 1 for two equal constant samples and p = 0 for two different ones', () => {
    expect(welchTTest([3, 3, 3], [3, 3]).pValue).toBe(1);
    expect(welchTTest([3, 3, 3], [4, 4]).pValue).toBe(0);
  });

  it('refuses a sample of one value', () => {
    expect(() => welchTTest([1], [1, 2])).toThrow(RangeError);
  });
});

describe("Cohen's d", () => {
  it('matches numpy on both pairs', () => {
    expect(cohensD(A1, B1)).toBeCloseTo(1.2, 12);
    expect(cohensD(A2, B2)).toBeCloseTo(0.6407644074250287, 10);
  });
});

describe('the Mann-Whitney U test', () => {
  it('matches scipy without ties', () => {
    const r = mannWhitneyU(A2, B2);
    expect(r.u).toBe(55.5);
    expect(r.pValue).toBeCloseTo(0.05279379552204588, 8);
  });

  it('matches scipy with ties in and across the samples', () => {
    const r = mannWhitneyU([1, 2, 2, 3, 3, 3, 4, 10], [3, 3, 4, 5, 5, 6, 7, 20, 2]);
    expect(r.u).toBe(18.5);
    expect(r.pValue).toBeCloseTo(0.09640725383131094, 8);
  });
});

describe('the regression rule', () => {
  const base = Array.from({ length: 200 }, (_, i) => 10 + (i % 10) * 0.1);
  it('calls a slower candidate a regression and a faster one an improvement', () => {
    const slower = base.map((x) => x * 1.2);
    expect(compareLatencies(base, slower).verdict).toBe('regression');
    expect(compareLatencies(slower, base).verdict).toBe('improvement');
    expect(compareLatencies(base, slower).deltaPercent).toBeCloseTo(20, 6);
  });

  it('calls the same distribution no significant change', () => {
    const c = compareLatencies(base, [...base].reverse());
    expect(c.verdict).toBe('no significant change');
    expect(c.significant).toBe(false);
    expect(c.welch.pValue).toBeCloseTo(1, 9);
  });

  it('calls a shift the mean test sees but the rank test does not no significant change (outliers)', () => {
    // Same body, one call in 13 stalled at 30 ms: the mean moves 15% (scipy: Welch p = 4.9e-5), the
    // ranks barely do (scipy: Mann-Whitney p = 0.154).
    const candidate = base.map((x, i) => (i % 13 === 0 ? 30 : x));
    const c = compareLatencies(base, candidate);
    expect(c.deltaPercent).toBeCloseTo(14.976, 2);
    expect(c.welch.pValue).toBeCloseTo(4.8938947414718114e-5, 9);
    expect(c.mannWhitney.pValue).toBeCloseTo(0.1543200499105364, 8);
    expect(c.mannWhitney.pValue).toBeGreaterThan(0.05);
    expect(c.verdict).toBe('no significant change');
  });

  it('calls a statistically certain but tiny change no significant change (below the minimum delta)', () => {
    const c = compareLatencies(
      base,
      base.map((x) => x * 1.01),
    );
    expect(c.welch.pValue).toBeLessThan(0.05);
    expect(c.verdict).toBe('no significant change');
  });
});
