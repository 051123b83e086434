/**
 * NATS subject rules (https://docs.nats.io/nats-concepts/subjects), shared by the memory transport
 * and by subject declarations so that both transports accept and match exactly the same subjects.
 *
 * - Tokens are separated by `.`; no token is empty; no whitespace anywhere.
 * - In a subscription pattern, `*` as a whole token matches exactly one token and `>` as the last
 *   whole token matches one or more trailing tokens. Elsewhere `*` and `>` are ordinary characters
 *   of a token (as in nats-server), but we refuse them in literal subjects to avoid confusion.
 */

const WHITESPACE = /\s/;

/** A subject a message can be sent to: no wildcards. */
export function isValidSubject(subject: string): boolean {
  if (subject.length === 0 || WHITESPACE.test(subject)) return false;
  for (const token of subject.split('.')) {
    if (token.length === 0 || token === '*' || token === '>') return false;
  }
  return true;
}

/** A subscription pattern: `*` anywhere as a whole token, `>` only as the last whole token. */
export function isValidPattern(pattern: string): boolean {
  if (pattern.length === 0 || WHITESPACE.test(pattern)) return false;
  const tokens = pattern.split('.');
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token === undefined || token.length === 0) return false;
    if (token === '>' && i !== tokens.length - 1) return false;
  }
  return true;
}

export function hasWildcard(pattern: string): boolean {
  return pattern.split('.').some((t) => t === '*' || t === '>');
}

/** Matches the tokens of a subject against the tokens of a pattern (both already split). */
export function matchTokens(pattern: readonly string[], subject: readonly string[]): boolean {
  const last = pattern.length - 1;
  for (let i = 0; i <= last; i++) {
    const p = pattern[i];
    // `>` needs at least one token left to swallow.
    if (p === '>') return subject.length > i;
    if (i >= subject.length) return false;
    if (p !== '*' && p !== subject[i]) return false;
  }
  return subject.length === pattern.length;
}

export function subjectMatches(pattern: string, subject: string): boolean {
  return matchTokens(pattern.split('.'), subject.split('.'));
}
