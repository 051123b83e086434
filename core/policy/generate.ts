import { hashCanonical } from '../chain/index.ts';
import { isValidScope, parseDurationSeconds, scopeGrantsOne } from '../capability/index.ts';
import { matchApprovals, matchExpiry, matchTimeWindows } from './conditions.ts';
import { matchGrants, type GrantContext, type Problem } from './grants.ts';
import { GENERATOR, knownResource } from './lexicon.ts';
import { matchLimits } from './limits.ts';
import type { GeneratedPolicy, Matched, PolicyRequest, PolicyRule, RuleBody } from './types.ts';
import { explain } from './explain.ts';
import { clausesOf, normalise } from './text.ts';

export type { GeneratedPolicy, Matched, PolicyRequest, PolicyRule } from './types.ts';

/**
 * Plain-language description in, scopes and a governance policy out (docs/AI-POLICY.md). Pure and
 * deterministic: no clock, no randomness, no model; the same input gives byte-identical output.
 */

/** A token request carries at most 100 scopes (POST /auth/token). */
export const MAX_SCOPES = 100;

interface Found {
  clause: number;
  at: number;
  phrase: string;
  kind: Matched['kind'];
  scopes?: string[];
  rule?: RuleBody;
  /** The counted thing of a limit ("50 emails" → email). */
  resource?: string;
  /** Well-known resources the clause names ("Refunds over $100 need approval" → payments). */
  named: string[];
  expiresIn?: string;
  asked?: string;
}

export function generatePolicy(request: PolicyRequest): GeneratedPolicy {
  const clauses = clausesOf(normalise(request.description));
  const ctx: GrantContext = { lastResources: [] };
  const found: Found[] = [];
  const unmatched: Problem[] = [];
  for (const clause of clauses) {
    const here: Found[] = [];
    const base = { clause: clause.index, named: [...new Set(clause.words.flatMap((w) => knownResource(w) ?? []))] };
    for (const m of matchLimits(clause))
      here.push({ ...base, at: m.at, phrase: m.phrase, kind: 'rule', rule: m.rule, ...(m.resource ? { resource: m.resource } : {}) });
    for (const m of matchApprovals(clause))
      here.push({ ...base, at: m.at, phrase: m.phrase, ...(m.rule ? { kind: 'rule', rule: m.rule } : { kind: 'waiver' }) });
    for (const m of matchTimeWindows(clause)) here.push({ ...base, at: m.at, phrase: m.phrase, kind: 'rule', rule: m.rule });
    for (const m of matchExpiry(clause))
      here.push({ ...base, at: m.at, phrase: m.phrase, kind: 'expiry', asked: m.asked, ...(m.expiresIn ? { expiresIn: m.expiresIn } : {}) });
    const { grants, problems } = matchGrants(clause, ctx);
    for (const g of grants) {
      here.push({
        ...base,
        at: g.at,
        phrase: g.phrase,
        kind: g.kind,
        scopes: g.scopes,
        ...(g.kind === 'deny' ? { rule: { kind: 'deny', scopes: g.scopes } } : {}),
      });
    }
    unmatched.push(...problems);
    if (here.length === 0 && problems.length === 0) unmatched.push({ phrase: clause.text, reason: nothingReason(clause.words) });
    found.push(...here.sort((a, b) => a.at - b.at));
  }
  return assemble(request, found, unmatched);
}

function nothingReason(words: readonly string[]): string {
  const named = words.map(knownResource).find((r) => r !== undefined);
  return named !== undefined ? `names ${named} but no action (read, write, delete, send, execute, manage)` : 'no action, resource or condition recognised';
}

function assemble(request: PolicyRequest, found: Found[], unmatched: Problem[]): GeneratedPolicy {
  const warnings: string[] = [];
  const granted = new Set(found.filter((f) => f.kind === 'grant').flatMap((f) => f.scopes ?? []));
  const denied = [...new Set(found.filter((f) => f.kind === 'deny').flatMap((f) => f.scopes ?? []))];
  for (const d of denied) {
    for (const g of [...granted]) {
      if (scopeGrantsOne(d, g)) {
        granted.delete(g);
        warnings.push(`"${g}" was both granted and denied; the denial wins and it is not granted`);
      } else if (scopeGrantsOne(g, d)) {
        warnings.push(`"${g}" also covers the denied "${d}": a scope cannot carve out an exception, so the deny rule is for the evaluator`);
      }
    }
  }
  for (const s of [...granted]) {
    if (isValidScope(s)) continue;
    granted.delete(s);
    unmatched.push({ phrase: s, reason: 'not a valid scope (resource:action)' });
  }
  let scopes = [...granted].sort();
  if (scopes.length > MAX_SCOPES) {
    warnings.push(`${scopes.length} scopes found; only the first ${MAX_SCOPES} (sorted) are kept, the most a token request carries`);
    scopes = scopes.slice(0, MAX_SCOPES);
  }
  for (const s of scopes.filter((x) => x.split(':').includes('*'))) {
    const from = found.find((f) => f.kind === 'grant' && f.scopes?.includes(s));
    warnings.push(
      `"${s}" is a wildcard (from "${from?.phrase ?? ''}"): it grants ${s === '*' ? 'everything' : 'every match of *'}; name the resources or actions instead if you can`,
    );
  }

  const rules: PolicyRule[] = [];
  const matched: Matched[] = [];
  const ruleIds = new Map<Found, string>();
  for (const f of found) {
    if (f.rule === undefined) continue;
    const id = `rule-${rules.length + 1}`;
    ruleIds.set(f, id);
    const appliesTo = f.rule.kind === 'deny' ? coveringGrants(f.rule.scopes, scopes) : appliesToOf(f, found, scopes);
    rules.push({ id, ...f.rule, appliesTo });
    if (appliesTo.length === 0 && f.rule.kind !== 'deny') warnings.push(`${id} ("${f.phrase}") applies to no granted scope`);
    if (f.rule.kind === 'time-window' && f.rule.timezone === null)
      warnings.push(`${id} ("${f.phrase}") names no time zone; the evaluator's local time applies`);
  }
  for (const f of found) {
    if (f.kind === 'waiver') warnings.push(`"${f.phrase}": approval is waived, so no approval rule`);
    const produces =
      f.kind === 'grant' ? (f.scopes ?? []) : f.kind === 'expiry' ? (f.expiresIn ? [f.expiresIn] : []) : ruleIds.has(f) ? [ruleIds.get(f) ?? ''] : [];
    matched.push({ phrase: f.phrase, kind: f.kind, produces });
  }
  const expiresIn = shortestLifetime(found, warnings);

  const body = {
    generator: GENERATOR,
    ...(request.subject !== undefined ? { subject: request.subject } : {}),
    scopes,
    rules,
    ...(expiresIn !== undefined ? { expiresIn } : {}),
  };
  // The version is the content: the same policy always has the same version, and any change to
  // scopes, rules or the word tables (GENERATOR) gives a new one.
  const digest = hashCanonical(body);
  const policy = {
    policyRef: `generated/${request.subject ?? digest.slice(0, 12)}`,
    policyVersion: digest.slice(0, 16),
    ...body,
  };
  const result = { scopes, policy, matched, unmatched, warnings };
  return { ...result, explanation: explain(result) };
}

/**
 * A rule governs the scopes granted in its own clause; a rule alone in its sentence governs the
 * scopes of the resources that sentence names ("Refunds over $100 need approval." → payments), or
 * every scope when it names none ("Requires approval."). A counted thing ("50 emails") narrows a
 * limit to that resource.
 */
function appliesToOf(rule: Found, found: Found[], scopes: string[]): string[] {
  const final = new Set(scopes);
  const own = found
    .filter((f) => f.clause === rule.clause && f.kind === 'grant')
    .flatMap((f) => f.scopes ?? [])
    .filter((s) => final.has(s));
  const base = own.length > 0 ? own : scopes;
  const resourceOf = (s: string) => s.split(':')[0] ?? '';
  let result = base;
  if (rule.resource !== undefined) {
    const narrowed = base.filter((s) => resourceOf(s) === rule.resource);
    // "No more than 50 emails a day." when no email scope is granted governs nothing (and says so).
    result = narrowed.length > 0 ? narrowed : own;
  } else if (own.length === 0 && rule.named.length > 0) {
    result = scopes.filter((s) => rule.named.includes(resourceOf(s)));
  }
  return [...new Set(result)].sort();
}

/** The granted scopes a deny rule still has to be enforced on: wildcards that cover a denied scope. */
function coveringGrants(denied: readonly string[], scopes: readonly string[]): string[] {
  return scopes.filter((g) => denied.some((d) => g !== d && scopeGrantsOne(g, d)));
}

function shortestLifetime(found: Found[], warnings: string[]): string | undefined {
  const asked = found.filter((f) => f.kind === 'expiry');
  for (const f of asked)
    if (f.expiresIn === undefined) warnings.push(`"${f.phrase}": ${f.asked} is not a token lifetime (1s to 365d); no lifetime taken from it`);
  const valid = asked.flatMap((f) => (f.expiresIn ? [{ text: f.expiresIn, seconds: parseDurationSeconds(f.expiresIn) ?? 0 }] : []));
  if (valid.length === 0) return undefined;
  const shortest = valid.reduce((a, b) => (b.seconds < a.seconds ? b : a));
  if (new Set(valid.map((v) => v.seconds)).size > 1) warnings.push(`several lifetimes named; the shortest, ${shortest.text}, is suggested`);
  return shortest.text;
}
