import { cohensD, meanAndStddev, welchTTest } from './welch.ts';
import { mannWhitneyU, type MannWhitneyResult } from './mann-whitney.ts';

export type Verdict = 'regression' | 'improvement' | 'no significant change';

/** The significance level of every comparison: a 5% chance of calling noise a change. */
export const ALPHA = 0.05;
/**
 * The smallest change of the mean called a regression or an improvement, in percent of the
 * baseline's mean. Below it a difference may be real but is not worth acting on; with 500 samples a
 * run can detect shifts far smaller than timer and scheduler noise between two runs.
 */
export const MINIMUM_DELTA_PERCENT = 5;

export interface Comparison {
  deltaMeanMs: number;
  deltaPercent: number;
  /** Welch's and Mann-Whitney's p-values both below ALPHA, and the change at least MINIMUM_DELTA_PERCENT. */
  significant: boolean;
  verdict: Verdict;
  alpha: number;
  minimumDeltaPercent: number;
  baseline: { n: number; meanMs: number; stddevMs: number };
  candidate: { n: number; meanMs: number; stddevMs: number };
  welch: { t: number | null; df: number; pValue: number };
  /** Cohen's d (pooled standard deviation), candidate minus baseline. */
  effectSize: { cohensD: number | null; magnitude: 'negligible' | 'small' | 'medium' | 'large' };
  mannWhitney: MannWhitneyResult & { significant: boolean };
}

/** Cohen's conventional bands (0.2, 0.5, 0.8). */
function magnitudeOf(d: number): Comparison['effectSize']['magnitude'] {
  const a = Math.abs(d);
  if (a < 0.2) return 'negligible';
  if (a < 0.5) return 'small';
  if (a < 0.8) return 'medium';
  return 'large';
}

const round = (x: number, digits = 6): number => Number(x.toFixed(digits));
/** JSON has no infinity: a t or d of two different constant samples is given as null. */
const finiteOrNull = (x: number): number | null => (Number.isFinite(x) ? round(x) : null);

/**
 * The regression rule: latencies of a candidate against a baseline (milliseconds; higher is worse).
 * A change is significant when Welch's t-test (the spec's test, on means) and the Mann-Whitney U
 * test (on ranks, which a few outliers cannot move) both reject at ALPHA, and the mean moved by at
 * least MINIMUM_DELTA_PERCENT. Latency is heavy-tailed: one GC pause can make a t-test alone call
 * two runs of the same server different, or hide a shift of the whole distribution.
 */
export function compareLatencies(baseline: readonly number[], candidate: readonly number[]): Comparison {
  const a = meanAndStddev(baseline);
  const b = meanAndStddev(candidate);
  const welch = welchTTest(baseline, candidate);
  const deltaMeanMs = b.mean - a.mean;
  // Latencies are recorded from 1 µs up, so a baseline mean of 0 means no baseline at all.
  const deltaPercent = a.mean === 0 ? 0 : (deltaMeanMs / a.mean) * 100;
  const d = cohensD(baseline, candidate);
  const mw = mannWhitneyU(baseline, candidate);
  const significant = welch.pValue < ALPHA && mw.pValue < ALPHA && Math.abs(deltaPercent) >= MINIMUM_DELTA_PERCENT;
  const verdict: Verdict = !significant ? 'no significant change' : deltaMeanMs > 0 ? 'regression' : 'improvement';
  return {
    deltaMeanMs: round(deltaMeanMs),
    deltaPercent: round(deltaPercent, 3),
    significant,
    verdict,
    alpha: ALPHA,
    minimumDeltaPercent: MINIMUM_DELTA_PERCENT,
    baseline: { n: a.n, meanMs: round(a.mean), stddevMs: round(a.stddev) },
    candidate: { n: b.n, meanMs: round(b.mean), stddevMs: round(b.stddev) },
    welch: { t: finiteOrNull(welch.t), df: round(welch.df), pValue: welch.pValue },
    effectSize: { cohensD: finiteOrNull(d), magnitude: magnitudeOf(d) },
    mannWhitney: { ...mw, significant: mw.pValue < ALPHA },
  };
}
