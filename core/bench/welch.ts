import tCdf from '@stdlib/stats-base-dists-t-cdf';

/** Mean and sample standard deviation (n - 1 in the denominator). */
export function meanAndStddev(xs: readonly number[]): { mean: number; stddev: number; n: number } {
  const n = xs.length;
  if (n === 0) return { mean: NaN, stddev: NaN, n };
  let mean = 0;
  // Welford's update: one pass, no catastrophic cancellation on large, close values.
  let m2 = 0;
  for (let i = 0; i < n; i++) {
    const x = xs[i]!;
    const delta = x - mean;
    mean += delta / (i + 1);
    m2 += delta * (x - mean);
  }
  return { mean, stddev: n > 1 ? Math.sqrt(m2 / (n - 1)) : 0, n };
}

export interface WelchResult {
  /** t statistic of candidate - baseline (b - a). */
  t: number;
  /** Welch-Satterthwaite degrees of freedom. */
  df: number;
  /** Two-sided p-value. */
  pValue: number;
}

/**
 * Welch's unequal-variance t-test of `b` against `a` (two-sided). The arithmetic is the textbook
 * formula; the Student t distribution's CDF comes from stdlib (@stdlib/stats-base-dists-t-cdf).
 * Each sample needs at least two values.
 */
export function welchTTest(a: readonly number[], b: readonly number[]): WelchResult {
  if (a.length < 2 || b.length < 2) throw new RangeError("Welch's t-test needs at least two values in each sample");
  const x = meanAndStddev(a);
  const y = meanAndStddev(b);
  const va = (x.stddev * x.stddev) / x.n;
  const vb = (y.stddev * y.stddev) / y.n;
  const se2 = va + vb;
  const diff = y.mean - x.mean;
  if (se2 === 0) {
    // Two constant samples: identical means are no evidence of a difference, different ones are certain.
    return diff === 0 ? { t: 0, df: x.n + y.n - 2, pValue: 1 } : { t: diff > 0 ? Infinity : -Infinity, df: x.n + y.n - 2, pValue: 0 };
  }
  const t = diff / Math.sqrt(se2);
  const df = (se2 * se2) / ((va * va) / (x.n - 1) + (vb * vb) / (y.n - 1));
  const pValue = Math.min(1, 2 * tCdf(-Math.abs(t), df));
  return { t, df, pValue };
}

/**
 * Cohen's d of `b` against `a`: the difference of means over the pooled standard deviation
 * (each variance weighted by n - 1). 0 when both samples are constant and equal.
 */
export function cohensD(a: readonly number[], b: readonly number[]): number {
  const x = meanAndStddev(a);
  const y = meanAndStddev(b);
  const pooled = Math.sqrt(((x.n - 1) * x.stddev ** 2 + (y.n - 1) * y.stddev ** 2) / (x.n + y.n - 2));
  const diff = y.mean - x.mean;
  if (pooled === 0) return diff === 0 ? 0 : diff > 0 ? Infinity : -Infinity;
  return diff / pooled;
}
