import { canonicalJson, sha256Hex } from '../chain/index.ts';
import { parseDurationSeconds, isValidScope } from '../capability/index.ts';
import { CallVars, compileCondition, evaluateCondition, type CallFacts, type Condition, type RuleMatch } from './cel.ts';
import { RuleIndex } from './rule-index.ts';

/**
 * The MCP gateway's policy file (`SUITE_MCP_POLICY`, docs/MCP.md "The policy file"): ordered rules on
 * an upstream call's server, tool and arguments. Parsed and checked once (every `when` compiled to
 * a CEL plan, the rules indexed by server and tool), evaluated per call without I/O.
 */

export type { CallFacts } from './cel.ts';

/** Names a rule in every decision and error: its place in the file (0-based) and its `name`, if any. */
export interface RuleRef {
  readonly index: number;
  readonly name?: string;
}

export type Effect =
  | { readonly effect: 'allow' }
  | { readonly effect: 'deny'; readonly reason: string }
  | { readonly effect: 'approve'; readonly approvers: string; readonly ttlSeconds: number };

export interface Budget {
  readonly calls: number;
  readonly perSeconds: number;
  readonly by: 'caller' | 'tenant';
  /** SHA-256 of the rule's canonical JSON: its counters survive edits to other rules, not to itself. */
  readonly key: string;
}

interface Compiled extends RuleRef {
  readonly server: string;
  readonly tool: RegExp;
  readonly when?: Condition;
  /** The rule as written, for `GET /mcp/policy`: its tool glob and its `when`. */
  readonly source: { readonly tool: string; readonly when?: string };
}
export type EffectRule = Compiled & Effect;
export type BudgetRule = Compiled & { readonly budget: Budget };

export interface Policy {
  /** SHA-256 (hex) of the file's bytes: on every decision, and bound into every approval. */
  readonly version: string;
  readonly rules: readonly EffectRule[];
  readonly budgets: readonly BudgetRule[];
  /** The same rules by the server and tool they name: a call evaluates only those that can match it. */
  readonly byCall: { readonly rules: RuleIndex<EffectRule>; readonly budgets: RuleIndex<BudgetRule> };
}

export type Parsed = { ok: true; policy: Policy } | { ok: false; message: string };

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const GLOB = /^[A-Za-z0-9_.*?-]{1,64}$/;
const RULE_KEYS = new Set(['name', 'server', 'tool', 'when', 'effect', 'reason', 'approvers', 'ttl', 'budget']);
const MAX_RULES = 10_000;
const MAX_WHEN = 4096;

/** `*` any run of characters, `?` one; the rest literal (tool names hold no other glob characters). */
function globToRegExp(glob: string): RegExp {
  return new RegExp(
    `^${glob
      .split('')
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.-]/g, '\\$&')))
      .join('')}$`,
  );
}

export const describeRule = (r: RuleRef) => (r.name !== undefined ? `rule ${r.index} ("${r.name}")` : `rule ${r.index}`);

/** Parse and check a policy file; an error names the first bad rule and what is wrong with it. */
export function parsePolicy(text: string): Parsed {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: `the policy file is not JSON: ${(err as Error).message}` };
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    return { ok: false, message: 'the policy file must be a JSON object with a "rules" array' };
  const extra = Object.keys(doc).filter((k) => k !== 'rules');
  if (extra.length > 0) return { ok: false, message: `the policy file has an unknown field: ${extra[0]}` };
  const rules = (doc as { rules?: unknown }).rules;
  if (!Array.isArray(rules)) return { ok: false, message: 'the policy file must have a "rules" array' };
  if (rules.length > MAX_RULES) return { ok: false, message: `the policy file has more than ${MAX_RULES} rules` };
  const effects: EffectRule[] = [];
  const budgets: BudgetRule[] = [];
  for (let index = 0; index < rules.length; index++) {
    const rule = compileRule(rules[index], index);
    if (!rule.ok) return { ok: false, message: rule.message };
    if ('budget' in rule.rule) budgets.push(rule.rule);
    else effects.push(rule.rule);
  }
  return {
    ok: true,
    policy: { version: sha256Hex(text), rules: effects, budgets, byCall: { rules: new RuleIndex(effects), budgets: new RuleIndex(budgets) } },
  };
}

type CompiledOne = { ok: true; rule: EffectRule | BudgetRule } | { ok: false; message: string };

function compileRule(raw: unknown, index: number): CompiledOne {
  const at = (name: string | undefined, problem: string): CompiledOne => ({ ok: false, message: `${describeRule({ index, name })}: ${problem}` });
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return at(undefined, 'must be an object');
  const r = raw as Record<string, unknown>;
  const name = typeof r.name === 'string' ? r.name : undefined;
  const unknown = Object.keys(r).find((k) => !RULE_KEYS.has(k));
  if (unknown !== undefined) return at(name, `unknown field "${unknown}"`);
  if (r.name !== undefined && (name === undefined || !NAME.test(name))) return at(undefined, 'name must be 1-64 letters, digits, "_", "." or "-"');
  if (typeof r.server !== 'string' || !NAME.test(r.server)) return at(name, "server must be an upstream's name");
  if (typeof r.tool !== 'string' || !GLOB.test(r.tool)) return at(name, 'tool must be a tool name or a glob ("*", "?")');
  let when: Compiled['when'];
  if (r.when !== undefined) {
    if (typeof r.when !== 'string' || r.when.length === 0 || r.when.length > MAX_WHEN)
      return at(name, `when must be a CEL expression of 1-${MAX_WHEN} characters`);
    const compiled = compileCondition(r.when);
    if (!compiled.ok) return at(name, `when is not valid CEL: ${compiled.message}`);
    when = compiled.evaluate;
  }
  const source = { tool: r.tool, ...(typeof r.when === 'string' ? { when: r.when } : {}) };
  const base = { index, ...(name !== undefined ? { name } : {}), server: r.server, tool: globToRegExp(r.tool), ...(when ? { when } : {}), source };

  if (r.budget !== undefined) {
    if (r.effect !== undefined || r.reason !== undefined || r.approvers !== undefined || r.ttl !== undefined)
      return at(name, 'a budget rule has no effect, reason, approvers or ttl');
    const b = r.budget as Record<string, unknown>;
    if (typeof b !== 'object' || b === null) return at(name, 'budget must be {"calls": N, "per": "1h", "by": "caller"|"tenant"}');
    const bad = Object.keys(b).find((k) => !['calls', 'per', 'by'].includes(k));
    if (bad !== undefined) return at(name, `budget has an unknown field "${bad}"`);
    if (!Number.isSafeInteger(b.calls) || (b.calls as number) < 1) return at(name, 'budget.calls must be a whole number of at least 1');
    const perSeconds = typeof b.per === 'string' ? parseDurationSeconds(b.per) : undefined;
    if (perSeconds === undefined) return at(name, 'budget.per must be a duration such as "30s", "15m", "1h" or "7d"');
    const by = b.by ?? 'caller';
    if (by !== 'caller' && by !== 'tenant') return at(name, 'budget.by must be "caller" or "tenant"');
    const key = sha256Hex(canonicalJson({ server: r.server, tool: r.tool, when: r.when ?? null, budget: { calls: b.calls, per: b.per, by } }));
    return { ok: true, rule: { ...base, budget: { calls: b.calls as number, perSeconds, by, key } } };
  }
  switch (r.effect) {
    case 'allow':
      if (r.reason !== undefined || r.approvers !== undefined || r.ttl !== undefined) return at(name, 'an allow rule has no reason, approvers or ttl');
      return { ok: true, rule: { ...base, effect: 'allow' } };
    case 'deny':
      if (typeof r.reason !== 'string' || r.reason.length === 0 || r.reason.length > 500)
        return at(name, 'a deny rule needs a reason (1-500 characters) the agent is shown');
      if (r.approvers !== undefined || r.ttl !== undefined) return at(name, 'a deny rule has no approvers or ttl');
      return { ok: true, rule: { ...base, effect: 'deny', reason: r.reason } };
    case 'approve': {
      if (typeof r.approvers !== 'string' || !isValidScope(r.approvers)) return at(name, 'an approve rule needs approvers: the scope a person needs to decide');
      const ttlSeconds = typeof r.ttl === 'string' ? parseDurationSeconds(r.ttl) : undefined;
      if (ttlSeconds === undefined) return at(name, 'an approve rule needs a ttl such as "15m" or "1h"');
      if (r.reason !== undefined) return at(name, 'an approve rule has no reason');
      return { ok: true, rule: { ...base, effect: 'approve', approvers: r.approvers, ttlSeconds } };
    }
    default:
      return at(name, 'effect must be "allow", "deny" or "approve" (or the rule a "budget")');
  }
}

const ALWAYS: RuleMatch = { matched: true };

/** Whether a rule the index gave for this call's server and tool matches it: its `when`, if it has one. */
const matches = (rule: Compiled, vars: CallVars): RuleMatch => (rule.when === undefined ? ALWAYS : evaluateCondition(rule.when, vars));

/**
 * The decision on one call: the first rule that matches decides; none: allowed, as without a
 * policy. A `when` that cannot be evaluated for this call (a missing argument, a wrong type) refuses
 * the call, naming the rule: a rule that cannot be read is never skipped past (fail closed).
 */
export type Decision =
  | { readonly effect: 'allow'; readonly rule?: RuleRef }
  | { readonly effect: 'deny'; readonly rule: RuleRef; readonly reason: string }
  | { readonly effect: 'approve'; readonly rule: RuleRef; readonly approvers: string; readonly ttlSeconds: number };

const refOf = (r: RuleRef): RuleRef => (r.name !== undefined ? { index: r.index, name: r.name } : { index: r.index });

/**
 * Only the rules the index gives for the call's server and tool are looked at, in file order: the
 * first of them that matches is the first of the file that does. `vars`: the call's CEL variables,
 * made once (pass the same to `budgetCharges`).
 */
export function decideCall(policy: Policy, facts: CallFacts, vars: CallVars = new CallVars(facts)): Decision {
  for (const rule of policy.byCall.rules.candidates(facts.server, facts.tool)) {
    const m = matches(rule, vars);
    if (m.matched === false) continue;
    if (m.matched === 'error') return { effect: 'deny', rule: refOf(rule), reason: `its condition could not be evaluated for this call (${m.message})` };
    if (rule.effect === 'allow') return { effect: 'allow', rule: refOf(rule) };
    if (rule.effect === 'deny') return { effect: 'deny', rule: refOf(rule), reason: rule.reason };
    return { effect: 'approve', rule: refOf(rule), approvers: rule.approvers, ttlSeconds: rule.ttlSeconds };
  }
  return { effect: 'allow' };
}

/** A budget one call counts against: which counter (rule key, caller or tenant, window) and its limit. */
export interface BudgetCharge {
  readonly rule: RuleRef;
  readonly key: string;
  /** `caller:<sub>` or `tenant:<id>` (a caller with no tenant is counted by its subject). */
  readonly by: string;
  /** Windows are fixed, aligned to the Unix epoch: `[start, start + per)`. */
  readonly windowStart: Date;
  readonly windowEnd: Date;
  readonly calls: number;
}

/**
 * Every budget rule that matches the call (all apply, not the first), as counters to charge. `vars`:
 * the call's variables if `decideCall` made them already (each converted once per call).
 */
export function budgetCharges(
  policy: Policy,
  facts: CallFacts,
  vars: CallVars = new CallVars(facts),
): { ok: true; charges: BudgetCharge[] } | { ok: false; rule: RuleRef; reason: string } {
  const charges: BudgetCharge[] = [];
  for (const rule of policy.byCall.budgets.candidates(facts.server, facts.tool)) {
    const m = matches(rule, vars);
    if (m.matched === false) continue;
    if (m.matched === 'error') return { ok: false, rule: refOf(rule), reason: `its condition could not be evaluated for this call (${m.message})` };
    const perMs = rule.budget.perSeconds * 1000;
    const start = Math.floor(facts.time.getTime() / perMs) * perMs;
    const by = rule.budget.by === 'tenant' && facts.caller.tenant !== null ? `tenant:${facts.caller.tenant}` : `caller:${facts.caller.sub}`;
    charges.push({ rule: refOf(rule), key: rule.budget.key, by, windowStart: new Date(start), windowEnd: new Date(start + perMs), calls: rule.budget.calls });
  }
  return { ok: true, charges };
}

/** The arguments' digest an approval binds to: SHA-256 (hex) of their RFC 8785 canonical JSON. */
export function argsDigest(args: Record<string, unknown>): string {
  return sha256Hex(canonicalJson(args));
}

/** One rule as `GET /mcp/policy` shows it (docs/MCP.md, "Reading and reloading the policy"). */
export interface RuleView {
  readonly index: number;
  readonly server: string;
  readonly tool: string;
  readonly effect: 'allow' | 'deny' | 'approve' | 'budget';
  readonly when?: string;
  readonly reason?: string;
}

/** Every rule of the file in its order, as written (a budget rule's effect is `budget`). */
export function ruleViews(policy: Policy): RuleView[] {
  const all: Array<EffectRule | BudgetRule> = [...policy.rules, ...policy.budgets].sort((a, b) => a.index - b.index);
  return all.map((r) => ({
    index: r.index,
    server: r.server,
    tool: r.source.tool,
    effect: 'budget' in r ? 'budget' : r.effect,
    ...(r.source.when !== undefined ? { when: r.source.when } : {}),
    ...('effect' in r && r.effect === 'deny' ? { reason: r.reason } : {}),
  }));
}
