import { editDistance } from '../core/capability/index.ts';

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

/** Edit distance, shared with the scope check of token issue (core/capability). */
export { editDistance };

/** `unknown <what> "word"`, with the closest known word when one is close. */
export function unknownWord(what: string, word: string, known: readonly string[], quote = (w: string) => `"${w}"`): UsageError {
  const near = closest(word, known);
  return new UsageError(`unknown ${what} ${quote(word)}${near === undefined ? '' : ` (did you mean ${quote(near)}?)`}`);
}
