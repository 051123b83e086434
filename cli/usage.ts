/**
 * Command-line mistakes (issue 23 part 6): one line naming the mistake, a did-you-mean when a known
 * word is close, then the usage; exit code 2, never a stack trace.
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * The known word closest to `word`, if it is close enough to be the one meant: at most one edit in
 * four characters (two for `verfy`/`verify`-sized words). Written here, not a dependency: the CLI
 * parses with node:util's parseArgs, and this is one small function (docs/RUNNING.md says why).
 */
export function closest(word: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(word.length / 4));
  for (const candidate of known) {
    const d = editDistance(word, candidate);
    if (d <= bestDistance && (best === undefined || d < bestDistance)) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of two neighbours. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min((d[i - 1] as number[])[j]! + 1, (d[i] as number[])[j - 1]! + 1, (d[i - 1] as number[])[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, (d[i - 2] as number[])[j - 2]! + 1);
      (d[i] as number[])[j] = v;
    }
  }
  return (d[a.length] as number[])[b.length]!;
}

/** `unknown <what> "word"`, with the closest known word when one is close. */
export function unknownWord(what: string, word: string, known: readonly string[], quote = (w: string) => `"${w}"`): UsageError {
  const near = closest(word, known);
  return new UsageError(`unknown ${what} ${quote(word)}${near === undefined ? '' : ` (did you mean ${quote(near)}?)`}`);
}
