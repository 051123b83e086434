import { actionAt, CONNECTORS, GENERIC_RESOURCE, isContentWord, knownResource, LEADING, NEGATIONS, PRONOUNS, type Action } from './lexicon.ts';
import { markUsed, phraseOf, type Clause } from './text.ts';

/**
 * Actions and their objects: "read the crm and update calendar events" gives `crm:read` and
 * `calendar:write`. An action applies to the noun phrases right after it, never to the whole clause,
 * so one verb cannot lend its action to another verb's object.
 */

export interface GrantMatch {
  kind: 'grant' | 'deny';
  scopes: string[];
  at: number;
  phrase: string;
}

export interface Problem {
  phrase: string;
  reason: string;
}

/** What carries from clause to clause: the resources named last, for "them" and "it". */
export interface GrantContext {
  lastResources: string[];
}

interface Group {
  start: number;
  end: number;
  actions: Action[];
  resources: string[];
  /** The object said "anything": a denial of every resource, never a grant. */
  anything: boolean;
  negated: boolean;
}

/** "do everything", "all permissions": the only phrases that give the bare `*`. */
const EVERYTHING_PHRASES = [
  ['do', 'everything'],
  ['all', 'permissions'],
  ['all', 'scopes'],
];

export function matchGrants(clause: Clause, ctx: GrantContext): { grants: GrantMatch[]; problems: Problem[] } {
  // Words a condition matcher used are skipped as if absent: "send [no more than 50] emails [per day]".
  const idx = clause.words.map((_, i) => i).filter((i) => !clause.used[i]);
  const words = idx.map((i) => clause.words[i] ?? '');
  const kinds = idx.map((i) => clause.tokens[i]?.kind);
  const phrase = (a: number, b: number) => phraseOf(clause, idx[a] ?? 0, idx[b] ?? 0);
  const problems: Problem[] = [];
  const groups: Group[] = [];
  const everything: Array<{ at: number; end: number }> = [];
  const negations: number[] = [];
  const loose: string[] = [];
  const isAction = (p: number) => (kinds[p] === 'word' ? actionAt(words, p) : undefined);
  const isNoun = (p: number) => kinds[p] === 'word' && isContentWord(words[p] ?? '') && !isAction(p);

  for (let p = 0; p < words.length; ) {
    const all = EVERYTHING_PHRASES.find((ph) => ph.every((w, k) => words[p + k] === w));
    if (all) {
      everything.push({ at: p, end: p + all.length });
      p += all.length;
      continue;
    }
    const first = isAction(p);
    if (!first) {
      if (NEGATIONS.has(words[p] ?? '')) negations.push(p);
      const known = isNoun(p) ? knownResource(words[p] ?? '') : undefined;
      if (known && !loose.includes(known)) loose.push(known);
      p++;
      continue;
    }
    const actions = [...first.actions];
    let q = p + first.length;
    // "read, update and delete": actions joined by connectors share one object.
    while (CONNECTORS.has(words[q] ?? '')) {
      const next = isAction(q + 1);
      if (!next) break;
      actions.push(...next.actions);
      q += 1 + next.length;
    }
    const object = parseObject(q);
    // "read tickets and never delete them": a pronoun later in this clause refers to these. Not
    // "anything": it is no resource, and "read anything, then read them" must not become `*:read`.
    if (object.resources.length > 0 && !object.anything) ctx.lastResources = object.resources;
    groups.push({ start: p, end: object.end, actions: unique(actions), resources: object.resources, anything: object.anything, negated: false });
    p = Math.max(object.end, q);
  }

  function parseObject(from: number): { resources: string[]; end: number; anything: boolean } {
    const resources: string[] = [];
    let r = from;
    let sawAll = false;
    let anything = false;
    for (;;) {
      while (LEADING.has(words[r] ?? '')) {
        if (words[r] === 'all') sawAll = true;
        r++;
      }
      const w = words[r] ?? '';
      if (PRONOUNS.has(w)) {
        if (ctx.lastResources.length === 0) problems.push({ phrase: w, reason: `"${w}" refers to no resource named before it` });
        resources.push(...ctx.lastResources);
        r++;
      } else if (w === 'everything' || w === 'anything') {
        resources.push('*');
        anything ||= w === 'anything';
        r++;
      } else if (isNoun(r)) {
        const runStart = r;
        while (isNoun(r)) r++;
        const run = words.slice(runStart, r);
        const resource = run.map(knownResource).find((k) => k !== undefined) ?? run.at(-1) ?? '';
        if (GENERIC_RESOURCE.test(resource)) resources.push(resource);
        else problems.push({ phrase: phrase(runStart, r - 1), reason: `"${resource}" cannot be a scope segment (letters a-z, digits, _ and -, at most 40)` });
      } else {
        break;
      }
      if (!CONNECTORS.has(words[r] ?? '')) break;
      let s = r + 1;
      while (LEADING.has(words[s] ?? '')) s++;
      const w2 = words[s] ?? '';
      if (!(PRONOUNS.has(w2) || w2 === 'everything' || w2 === 'anything' || isNoun(s))) break;
      r = r + 1;
    }
    // "read all" with nothing after it: the explicit word "all" is the object.
    if (resources.length === 0 && sawAll) resources.push('*');
    return { resources: unique(resources), end: resources.length > 0 ? r : from, anything };
  }

  // A negation binds to the next action in the clause, or else to the last one before it:
  // "never delete tickets", "deleting tickets is not allowed".
  for (const n of negations) {
    const target = groups.find((g) => g.start > n) ?? groups.findLast((g) => g.start < n);
    if (target) target.negated = true;
  }

  const grants: GrantMatch[] = [];
  for (const g of groups) {
    let resources = g.resources;
    if (resources.length === 0) resources = loose;
    if (resources.length === 0 && g.negated) resources = ctx.lastResources.length > 0 ? ctx.lastResources : ['*'];
    const last = Math.max(g.end - 1, g.start);
    const text = phrase(g.start, last);
    if (resources.length === 0) {
      problems.push({ phrase: text, reason: `"${words[g.start]}" names no resource (say what it acts on, e.g. "${words[g.start]} tickets")` });
      continue;
    }
    if (!g.negated && g.anything) {
      problems.push({ phrase: text, reason: '"anything" grants nothing; write "everything" to mean every resource' });
      continue;
    }
    ctx.lastResources = resources;
    const scopes = unique(resources.flatMap((r) => g.actions.map((a) => `${r}:${a}`)));
    grants.push({ kind: g.negated ? 'deny' : 'grant', scopes, at: idx[g.start] ?? 0, phrase: text });
    markUsed(clause, idx[g.start] ?? 0, idx[last] ?? 0);
  }
  for (const e of everything) {
    const negated = negations.some((n) => n < e.at && !groups.some((g) => g.start > n && g.start < e.at));
    const text = phrase(e.at, e.end - 1);
    if (negated) problems.push({ phrase: text, reason: 'a negated "everything" grants and denies nothing' });
    else grants.push({ kind: 'grant', scopes: ['*'], at: idx[e.at] ?? 0, phrase: text });
  }
  grants.sort((a, b) => a.at - b.at);
  return { grants, problems };
}

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}
