/** Deterministic text pieces shared by the grounding rules: sentences, words, numbers and dates with their offsets. */

export interface Span {
  start: number;
  end: number;
  text: string;
}

const ABBREVIATIONS = new Set(['mr', 'mrs', 'ms', 'dr', 'prof', 'inc', 'ltd', 'co', 'corp', 'st', 'vs', 'e.g', 'i.e', 'etc', 'no', 'jr', 'sr']);

/** Sentences with their offsets; a full stop after a known abbreviation or inside a number ends nothing. */
export function sentences(text: string): Span[] {
  const out: Span[] = [];
  let start = 0;
  for (const m of text.matchAll(/[.!?]+["”')\]]*(?=\s|$)/g)) {
    const end = m.index + m[0].length;
    const before = text.slice(start, m.index);
    const lastWord = /([A-Za-z.]+)$/.exec(before)?.[1]?.toLowerCase();
    if (m[0].startsWith('.') && m[0].length === 1 && lastWord !== undefined && ABBREVIATIONS.has(lastWord)) continue;
    pushTrimmed(out, text, start, end);
    start = end;
  }
  pushTrimmed(out, text, start, text.length);
  return out;
}

function pushTrimmed(out: Span[], text: string, start: number, end: number): void {
  const raw = text.slice(start, end);
  const lead = raw.length - raw.trimStart().length;
  const trimmed = raw.trim();
  if (trimmed !== '') out.push({ start: start + lead, end: start + lead + trimmed.length, text: trimmed });
}

export const STOPWORDS = new Set(
  `a an the and or but if then than so of to in on at by for with from into onto over under about
as is are was were be been being has have had do does did will would shall should can could may might must it its it's this that
these those there here their they them he she his her him we our us you your i me my not no nor also very just only more most
which who whom whose what when where why how all any both each few other some such own same too up down out off again further
once per via while during before after above below between through until against among upon across`.split(/\s+/),
);

/** Lower-case content words (stop words dropped, a plural's final s dropped) of a text. */
export function contentWords(text: string): string[] {
  const words: string[] = [];
  for (const m of text.toLowerCase().matchAll(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu)) {
    const w = m[0].replace(/['’]s$/, '');
    if (STOPWORDS.has(w) || w.length < 2) continue;
    words.push(stem(w));
  }
  return words;
}

function stem(w: string): string {
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1);
  return w;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH = `(${MONTHS.map((m) => `${m[0]!.toUpperCase()}${m.slice(1)}`).join('|')}|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)`;
export const MONTH_NAMES = new Set(MONTHS);
const DATE_PATTERNS: ReadonlyArray<[RegExp, (m: RegExpExecArray) => string]> = [
  [/\b(\d{4})-(\d{2})-(\d{2})\b/g, (m) => `${m[1]}-${m[2]}-${m[3]}`],
  [new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)? ${MONTH},? (\\d{4})\\b`, 'g'), (m) => ymd(m[3]!, m[2]!, m[1]!)],
  [new RegExp(`\\b${MONTH} (\\d{1,2})(?:st|nd|rd|th)?,? (\\d{4})\\b`, 'g'), (m) => ymd(m[3]!, m[1]!, m[2]!)],
  [new RegExp(`\\b${MONTH},? (\\d{4})\\b`, 'g'), (m) => ym(m[2]!, m[1]!)],
];

function monthNumber(name: string): string {
  const i = MONTHS.findIndex((m) => m.startsWith(name.toLowerCase().slice(0, 3)));
  return String(i + 1).padStart(2, '0');
}
const ymd = (y: string, month: string, d: string) => `${y}-${monthNumber(month)}-${d.padStart(2, '0')}`;
const ym = (y: string, month: string) => `${y}-${monthNumber(month)}`;

export interface Found extends Span {
  /** The normalised value: `YYYY-MM-DD` or `YYYY-MM` for a date, the plain decimal for a number. */
  value: string;
}

/** Dates written as ISO, "5 March 2024", "March 5, 2024" or "March 2024"; overlapping matches keep the first, longest. */
export function dates(text: string): Found[] {
  const found: Found[] = [];
  // Characters already inside a date: a later, shorter pattern never matches inside an earlier one.
  const taken = new Uint8Array(text.length);
  for (const [pattern, normalise] of DATE_PATTERNS) {
    for (const m of text.matchAll(pattern)) {
      const start = m.index;
      const end = start + m[0].length;
      if (taken[start] === 1 || taken[end - 1] === 1) continue;
      taken.fill(1, start, end);
      found.push({ start, end, text: m[0], value: normalise(m as unknown as RegExpExecArray) });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

/** Numbers (thousands separators and decimals allowed), skipping any inside `mask` spans (dates). */
export function numbers(text: string, mask: readonly Span[] = []): Found[] {
  const found: Found[] = [];
  for (const m of text.matchAll(/(?<![\p{L}\p{N}_.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\p{N}])|(?<![\p{L}\p{N}_.,])\d+(?:\.\d+)?(?![\p{N}])/gu)) {
    const start = m.index;
    const end = start + m[0].length;
    if (mask.some((s) => start < s.end && end > s.start)) continue;
    found.push({ start, end, text: m[0], value: normaliseNumber(m[0]) });
  }
  return found;
}

function normaliseNumber(raw: string): string {
  return String(Number(raw.replaceAll(',', '')));
}

/** Whitespace and typographic quotes made plain, so that a verbatim check ignores only layout. */
export function plain(text: string): string {
  return text.replace(/[‘’]/g, "'").replace(/[“”]/g, '"').replace(/\s+/g, ' ').trim();
}
