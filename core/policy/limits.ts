import { GENERIC_RESOURCE, isContentWord, knownResource } from './lexicon.ts';
import { markUsed, phraseOf, type Clause, type Token } from './text.ts';

/** Money, as the execution record's cost object has it: integer minor units and an ISO-4217 code. */
export interface Money {
  amount: number;
  currency: string;
}

export type Period = 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month';

const PERIODS = new Map<string, Period>([
  ...(['second', 'minute', 'hour', 'day', 'week', 'month'] as const).flatMap(
    (p): Array<[string, Period]> => [
      [p, p],
      [`${p}s`, p],
    ],
  ),
]);
const PERIOD_ADVERBS = new Map<string, Period>([
  ['hourly', 'hour'],
  ['daily', 'day'],
  ['weekly', 'week'],
  ['monthly', 'month'],
]);
const PERIOD_LEADS = new Set(['per', 'a', 'an', 'each', 'every']);

const SYMBOLS: Record<string, string> = { $: 'USD', '€': 'EUR', '£': 'GBP' };
const CURRENCY_WORDS = new Map<string, string>([
  ['usd', 'USD'],
  ['dollar', 'USD'],
  ['dollars', 'USD'],
  ['eur', 'EUR'],
  ['euro', 'EUR'],
  ['euros', 'EUR'],
  ['gbp', 'GBP'],
  ['pound', 'GBP'],
  ['pounds', 'GBP'],
]);

/** A whole number written with digits (thousands commas allowed), or undefined. */
export function wholeNumber(token: Token | undefined): number | undefined {
  if (token?.kind !== 'number' || token.text.includes('.')) return undefined;
  const n = Number(token.text.replaceAll(',', ''));
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Money at token `i` ("$500", "€12.50", "500 usd"): the amount and how many tokens it took. */
export function moneyAt(tokens: readonly Token[], i: number): { money: Money; length: number } | undefined {
  const t = tokens[i];
  if (t === undefined) return undefined;
  if (t.kind === 'money') {
    const currency = SYMBOLS[t.text[0] ?? ''];
    const amount = minorUnits(t.text.slice(1).trim());
    return currency !== undefined && amount !== undefined ? { money: { amount, currency }, length: 1 } : undefined;
  }
  const currency = CURRENCY_WORDS.get(tokens[i + 1]?.text ?? '');
  if (t.kind !== 'number' || currency === undefined) return undefined;
  const amount = minorUnits(t.text);
  return amount !== undefined ? { money: { amount, currency }, length: 2 } : undefined;
}

function minorUnits(text: string): number | undefined {
  const m = /^([\d,]+)(?:\.(\d{1,2}))?$/.exec(text);
  if (!m) return undefined;
  const minor = Number((m[1] ?? '').replaceAll(',', '')) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  return Number.isSafeInteger(minor) ? minor : undefined;
}

export type LimitRule =
  | { kind: 'rate-limit'; max: number; per: Period; of?: string }
  | { kind: 'count-limit'; max: number; of?: string }
  | { kind: 'amount-limit'; amount: number; currency: string; per?: Period };

export interface LimitMatch {
  rule: LimitRule;
  at: number;
  phrase: string;
  /** The resource the counted thing names ("50 emails" → email), to attach the limit to its scopes. */
  resource?: string;
}

const LIMIT_LEADS: string[][] = [
  ['no', 'more', 'than'],
  ['not', 'more', 'than'],
  ['a', 'maximum', 'of'],
  ['a', 'limit', 'of'],
  ['maximum', 'of'],
  ['limit', 'of'],
  ['limited', 'to'],
  ['capped', 'at'],
  ['at', 'most'],
  ['up', 'to'],
  ['maximum'],
  ['max'],
];

function leadAt(clause: Clause, i: number): number {
  for (const lead of LIMIT_LEADS) {
    if (lead.every((w, k) => clause.words[i + k] === w && !clause.used[i + k])) return lead.length;
  }
  return 0;
}

/**
 * "no more than N [things] [per period]", "up to $N [per period]" and their variants (the table is
 * in docs/AI-POLICY.md). The counted words stay unused so that "send no more than 50 emails per
 * day" still grants `email:send`, and the limit attaches to it.
 */
export function matchLimits(clause: Clause): LimitMatch[] {
  const found: LimitMatch[] = [];
  const { tokens, words } = clause;
  for (let i = 0; i < tokens.length; i++) {
    const lead = leadAt(clause, i);
    if (lead === 0) continue;
    const j = i + lead;
    const money = moneyAt(tokens, j);
    const count = money === undefined ? wholeNumber(tokens[j]) : undefined;
    if (money === undefined && count === undefined) continue;
    const afterNumber = j + (money?.length ?? 1);
    const period = periodAfter(clause, afterNumber);
    const unitEnd = period?.at ?? unitRunEnd(words, afterNumber);
    const unit = words.slice(afterNumber, unitEnd).filter(isContentWord);
    const last = period ? period.at + period.length - 1 : afterNumber - 1;
    markUsed(clause, i, afterNumber - 1);
    if (period) markUsed(clause, period.at, last);
    const of = unit.length > 0 ? unit.join(' ') : undefined;
    const rule: LimitRule =
      money !== undefined
        ? { kind: 'amount-limit', amount: money.money.amount, currency: money.money.currency, ...(period ? { per: period.per } : {}) }
        : period
          ? { kind: 'rate-limit', max: count ?? 0, per: period.per, ...(of !== undefined ? { of } : {}) }
          : { kind: 'count-limit', max: count ?? 0, ...(of !== undefined ? { of } : {}) };
    const resource = resourceOfUnit(unit);
    found.push({ rule, at: i, phrase: phraseOf(clause, i, Math.max(last, unitEnd - 1)), ...(resource !== undefined ? { resource } : {}) });
    i = last;
  }
  return found;
}

/** "per day", "a day", "each hour", "daily" within six words after the number. */
function periodAfter(clause: Clause, from: number): { at: number; length: number; per: Period } | undefined {
  const { words, tokens } = clause;
  for (let k = from; k < Math.min(from + 6, words.length); k++) {
    if (tokens[k]?.kind === 'number' || tokens[k]?.kind === 'money' || clause.used[k]) return undefined;
    const w = words[k] ?? '';
    const adverb = PERIOD_ADVERBS.get(w);
    if (adverb) return { at: k, length: 1, per: adverb };
    const next = PERIODS.get(words[k + 1] ?? '');
    if (PERIOD_LEADS.has(w) && next) return { at: k, length: 2, per: next };
  }
  return undefined;
}

/** Without a period, the counted thing is the content words right after the number (at most 3). */
function unitRunEnd(words: readonly string[], from: number): number {
  let k = from;
  while (k < words.length && k < from + 3 && isContentWord(words[k] ?? '')) k++;
  return k;
}

export function resourceOfUnit(unit: readonly string[]): string | undefined {
  for (const w of unit) {
    const known = knownResource(w);
    if (known) return known;
  }
  const head = unit.at(-1);
  return head !== undefined && GENERIC_RESOURCE.test(head) ? head : undefined;
}
