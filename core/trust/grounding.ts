import { contentWords, dates, MONTH_NAMES, numbers, plain, sentences, STOPWORDS, type Span } from './text.ts';

/**
 * Grounding checks (spec, trust rule 5): where an output says something its sources do not, as risk
 * signals pointing at the span. Rule-based and deterministic; never a verdict on whether the output
 * is true: a signal says "not found in the sources you gave", nothing more. Rules (docs/TRUST.md):
 *
 * - `unsupported-claim`: a sentence whose content words are mostly absent from every single source
 *   sentence (coverage below SUPPORT_THRESHOLD of the best one).
 * - `number-not-in-sources` / `date-not-in-sources`: a number or date (normalised) no source contains.
 * - `quotation-not-found`: quoted text not found verbatim (layout aside) in any source.
 * - `entity-not-in-sources`: a capitalised name with a word no source contains.
 */

export const SUPPORT_THRESHOLD = 0.5;
/** Sentences with fewer content words say too little to measure support. */
const MIN_CLAIM_WORDS = 3;

export type SignalType = 'unsupported-claim' | 'number-not-in-sources' | 'date-not-in-sources' | 'quotation-not-found' | 'entity-not-in-sources';

export interface Signal {
  type: SignalType;
  span: Span;
  detail: string;
  /** For unsupported claims: the closest source sentence and how much of the claim it covers. */
  closest?: { source: number; sentence: string; coverage: number };
}

export interface GroundingReport {
  signals: Signal[];
  checked: { sentences: number; numbers: number; dates: number; quotations: number; entities: number };
  notice: string;
}

export const GROUNDING_NOTICE =
  'Risk signals only: each marks a span of the output not found in the sources given. ' +
  'No signal does not make the output true, and a signal does not make it false.';

export function checkGrounding(output: string, sources: readonly string[]): GroundingReport {
  const sourceSentences = sources.flatMap((text, source) => sentences(text).map((s) => ({ source, text: s.text, words: new Set(contentWords(s.text)) })));
  const sourceDates = new Set(sources.flatMap((s) => dates(s).map((d) => d.value)));
  const sourceNumbers = new Set(sources.flatMap((s) => numbers(s).map((n) => n.value)));
  const plainSources = sources.map(plain);
  const sourceWords = new Set(sources.flatMap((s) => [...s.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)].map((m) => m[0])));

  const index = wordIndex(sourceSentences);
  const counts = new Int32Array(sourceSentences.length);
  const signals: Signal[] = [];
  const claimSentences = sentences(output);
  for (const sentence of claimSentences) {
    const words = contentWords(sentence.text);
    if (words.length < MIN_CLAIM_WORDS) continue;
    const best = closestSentence(words, sourceSentences, index, counts);
    if (best.coverage < SUPPORT_THRESHOLD) {
      signals.push({
        type: 'unsupported-claim',
        span: sentence,
        detail: `no source sentence covers at least ${SUPPORT_THRESHOLD * 100}% of this sentence's content words (best ${Math.round(best.coverage * 100)}%)`,
        ...(best.source >= 0 ? { closest: best } : {}),
      });
    }
  }

  const outputDates = dates(output);
  for (const d of outputDates) {
    const month = d.value.slice(0, 7);
    const found = d.value.length === 7 ? [...sourceDates].some((s) => s.startsWith(month)) : sourceDates.has(d.value);
    if (!found) signals.push({ type: 'date-not-in-sources', span: span(d), detail: `the date ${d.value} appears in no source` });
  }
  const outputNumbers = numbers(output, outputDates);
  for (const n of outputNumbers) {
    if (!sourceNumbers.has(n.value)) signals.push({ type: 'number-not-in-sources', span: span(n), detail: `the number ${n.value} appears in no source` });
  }

  const quotations = quotes(output);
  for (const q of quotations) {
    const quoted = plain(q.inner);
    if (!plainSources.some((s) => s.includes(quoted))) {
      signals.push({ type: 'quotation-not-found', span: q.span, detail: 'the quoted words are not found verbatim in any source' });
    }
  }

  const entities = names(output, claimSentences);
  for (const e of entities) {
    const missing = e.words.filter((w) => !sourceWords.has(w.toLowerCase()));
    if (missing.length > 0) {
      signals.push({ type: 'entity-not-in-sources', span: e.span, detail: `the name "${e.span.text}" is not in the sources (${missing.join(', ')} absent)` });
    }
  }

  signals.sort((a, b) => a.span.start - b.span.start || a.type.localeCompare(b.type));
  return {
    signals,
    checked: {
      sentences: claimSentences.length,
      numbers: outputNumbers.length,
      dates: outputDates.length,
      quotations: quotations.length,
      entities: entities.length,
    },
    notice: GROUNDING_NOTICE,
  };
}

interface SourceSentence {
  source: number;
  text: string;
  words: Set<string>;
}

/** Word -> the source sentences holding it, so that a claim is compared only with sentences sharing a word. */
function wordIndex(sentences: readonly SourceSentence[]): Map<string, number[]> {
  const index = new Map<string, number[]>();
  sentences.forEach((s, i) => {
    for (const w of s.words) {
      const list = index.get(w);
      if (list === undefined) index.set(w, [i]);
      else list.push(i);
    }
  });
  return index;
}

/** The source sentence covering most of the claim's content words (the first of equals, in source order). */
function closestSentence(words: readonly string[], sentences: readonly SourceSentence[], index: Map<string, number[]>, counts: Int32Array) {
  const touched: number[] = [];
  for (const w of words) {
    for (const i of index.get(w) ?? []) {
      if (counts[i] === 0) touched.push(i);
      counts[i] = counts[i]! + 1;
    }
  }
  let bestIndex = -1;
  let bestCount = 0;
  for (const i of touched) {
    const count = counts[i]!;
    if (count > bestCount || (count === bestCount && i < bestIndex)) {
      bestCount = count;
      bestIndex = i;
    }
    counts[i] = 0;
  }
  if (bestIndex < 0) return { source: -1, sentence: '', coverage: 0 };
  return { source: sentences[bestIndex]!.source, sentence: sentences[bestIndex]!.text, coverage: round(bestCount / words.length) };
}

function quotes(text: string): Array<{ span: Span; inner: string }> {
  const out: Array<{ span: Span; inner: string }> = [];
  for (const m of text.matchAll(/"([^"\n]{1,2000})"|“([^”\n]{1,2000})”/g)) {
    out.push({ span: { start: m.index, end: m.index + m[0].length, text: m[0] }, inner: m[1] ?? m[2] ?? '' });
  }
  return out;
}

const NOT_NAMES = new Set([...STOPWORDS, ...MONTH_NAMES, 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday', 'i']);

/**
 * Capitalised word runs. A single capitalised word opening a sentence is skipped (it may be an
 * ordinary word); leading function words ("The", "In") are dropped.
 */
function names(text: string, sentenceSpans: readonly Span[]): Array<{ span: Span; words: string[] }> {
  const starts = new Set(sentenceSpans.map((s) => firstWordStart(text, s)));
  const out: Array<{ span: Span; words: string[] }> = [];
  for (const m of text.matchAll(/\p{Lu}[\p{L}\p{N}&'’-]*(?: \p{Lu}[\p{L}\p{N}&'’-]*)*/gu)) {
    let start = m.index;
    let tokens = m[0].split(' ');
    while (tokens.length > 0 && NOT_NAMES.has(bare(tokens[0]!))) {
      start = text.indexOf(tokens[1] ?? '', start + tokens[0]!.length);
      tokens = tokens.slice(1);
    }
    tokens = trimTrailing(tokens);
    if (tokens.length === 0) continue;
    if (tokens.length === 1 && starts.has(start)) continue;
    const words = tokens.map(bare).filter((w) => w !== '' && !NOT_NAMES.has(w));
    if (words.length === 0) continue;
    const end = start + tokens.join(' ').length;
    out.push({ span: { start, end, text: text.slice(start, end) }, words });
  }
  return out;
}

function trimTrailing(tokens: string[]): string[] {
  const t = [...tokens];
  while (t.length > 0 && NOT_NAMES.has(bare(t[t.length - 1]!))) t.pop();
  return t;
}

const bare = (token: string) =>
  token
    .toLowerCase()
    .replace(/['’]s$/, '')
    .replace(/[^\p{L}\p{N}]+$/u, '');

function firstWordStart(text: string, s: Span): number {
  const m = /[\p{L}\p{N}]/u.exec(text.slice(s.start, s.end));
  return m === null ? s.start : s.start + m.index;
}

const span = (f: Span): Span => ({ start: f.start, end: f.end, text: f.text });
const round = (n: number) => Math.round(n * 1000) / 1000;
