/**
 * Text handling of the policy generator: one normal form, clauses, and tokens with their positions
 * (so a matched phrase can be quoted back exactly as the normal form reads).
 */

export type TokenKind = 'word' | 'number' | 'money' | 'time' | 'punct';

export interface Token {
  readonly text: string;
  readonly kind: TokenKind;
  readonly start: number;
  readonly end: number;
}

/** One clause: its text, its tokens, and which tokens a matcher has already used. */
export interface Clause {
  readonly index: number;
  readonly text: string;
  readonly tokens: readonly Token[];
  readonly words: readonly string[];
  readonly used: boolean[];
}

/**
 * The normal form every rule reads: Unicode NFKC, lower case (locale-independent), typographic
 * apostrophes made plain, whitespace collapsed.
 */
export function normalise(description: string): string {
  return description
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc`]/g, "'")
    .replace(/[ \t\f\v]+/g, ' ');
}

/**
 * Clauses end at sentence punctuation, a semicolon, a line break, or a contrasting word ("but",
 * "except", "however", "although", "whereas"): an action never reaches across one, which is what
 * keeps "read tickets but never delete them" from granting a delete.
 */
const CLAUSE_BREAK = /[.!?](?=\s|$)|[;\r\n]+|\b(?:but|except|however|although|whereas)\b/g;

const TOKEN = new RegExp(
  [
    String.raw`(?<money>[$€£] ?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?)`,
    String.raw`(?<time>\d{1,2}(?::\d{2})? ?(?:am|pm)\b|\d{1,2}:\d{2}\b)`,
    String.raw`(?<number>(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?)`,
    String.raw`(?<word>[\p{L}\p{N}][\p{L}\p{N}_'-]*)`,
    '(?<punct>[,&/])',
  ].join('|'),
  'gu',
);

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const groups = m.groups ?? {};
    const kind = (['money', 'time', 'number', 'word', 'punct'] as const).find((k) => groups[k] !== undefined) ?? 'word';
    let raw = m[0];
    // A possessive or a trailing hyphen is not part of the word: "manager's" reads as "manager".
    if (kind === 'word') raw = raw.replace(/'s$/, '').replace(/['_-]+$/, '');
    if (raw === '') continue;
    tokens.push({ text: raw, kind, start: m.index, end: m.index + m[0].length });
  }
  return tokens;
}

export function clausesOf(normalised: string): Clause[] {
  const clauses: Clause[] = [];
  for (const part of normalised.split(CLAUSE_BREAK)) {
    const text = part.trim();
    const tokens = tokenize(text);
    if (tokens.length === 0) continue;
    clauses.push({ index: clauses.length, text, tokens, words: tokens.map((t) => t.text), used: tokens.map(() => false) });
  }
  return clauses;
}

/** The clause's text from token `from` to token `to` (inclusive), whitespace collapsed. */
export function phraseOf(clause: Clause, from: number, to: number): string {
  const a = clause.tokens[from];
  const b = clause.tokens[to];
  if (a === undefined || b === undefined) return '';
  return clause.text.slice(a.start, b.end).replace(/\s+/g, ' ');
}

export function markUsed(clause: Clause, from: number, to: number): void {
  for (let i = from; i <= to; i++) clause.used[i] = true;
}
