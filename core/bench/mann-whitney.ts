import normalCdf from '@stdlib/stats-base-dists-normal-cdf';

export interface MannWhitneyResult {
  /** U of the first sample (`a`): how many (a, b) pairs have a > b, ties counting one half. */
  u: number;
  /** Two-sided p-value, normal approximation with tie and continuity corrections. */
  pValue: number;
  /** P(b > a) + P(b = a) / 2: the probability that a candidate value exceeds a baseline value. */
  probabilityOfSuperiority: number;
}

/**
 * The Mann-Whitney U test (two-sided), for heavy-tailed latencies where a t-test's normality is
 * doubtful. Ranks with ties averaged; the p-value from the normal approximation with the tie
 * correction of the variance and a continuity correction of 0.5 (as scipy's
 * `mannwhitneyu(method="asymptotic")`), adequate for the sample sizes a run has (10 to 500).
 */
export function mannWhitneyU(a: readonly number[], b: readonly number[]): MannWhitneyResult {
  const n1 = a.length;
  const n2 = b.length;
  if (n1 === 0 || n2 === 0) throw new RangeError('the Mann-Whitney U test needs values in both samples');
  const all = [...a.map((v) => ({ v, first: true })), ...b.map((v) => ({ v, first: false }))].sort((p, q) => p.v - q.v);
  const n = all.length;
  let rankSumA = 0;
  let tieTerm = 0;
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && all[j + 1]!.v === all[i]!.v) j++;
    const rank = (i + j + 2) / 2;
    const ties = j - i + 1;
    tieTerm += ties ** 3 - ties;
    for (let k = i; k <= j; k++) if (all[k]!.first) rankSumA += rank;
    i = j + 1;
  }
  const u = rankSumA - (n1 * (n1 + 1)) / 2;
  const mu = (n1 * n2) / 2;
  const sigma = Math.sqrt(((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1))));
  let pValue = 1;
  if (sigma > 0) {
    const z = (Math.abs(u - mu) - 0.5) / sigma;
    pValue = Math.min(1, 2 * normalCdf(-Math.max(0, z), 0, 1));
  }
  return { u, pValue, probabilityOfSuperiority: 1 - u / (n1 * n2) };
}
