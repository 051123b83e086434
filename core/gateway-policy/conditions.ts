import { isValidScope, scopeGrantsOne } from '../capability/index.ts';
import { CallVars, compileCondition, evaluateCondition, type CallFacts } from './cel.ts';

/**
 * Conditions a token binds to its scope entries (claim `cnd`, docs/MCP.md "Conditions on a token's
 * scope"): `{"mcp:bank:transfer": "args.amount < 1000"}` lets the token call `transfer` only while the
 * CEL condition holds for the call. Keys are MCP gateway scopes (`mcp:<server>:<tool>`, globs as in
 * any scope), the only calls the gateway checks them on: a condition on any other scope would be
 * a promise nothing keeps, so it is refused at issue.
 */
export type TokenConditions = Readonly<Record<string, string>>;

const MCP_TOOL_SCOPE = /^mcp:[^:]+:[^:]+$/;

/** Why these conditions cannot be issued (a key not an MCP tool scope, a condition not valid CEL), or undefined. */
export function tokenConditionsProblem(conditions: TokenConditions): string | undefined {
  for (const [scope, text] of Object.entries(conditions)) {
    if (!isValidScope(scope) || !MCP_TOOL_SCOPE.test(scope))
      return `conditions: "${scope}" is not an MCP gateway tool scope (mcp:<server>:<tool>); only those calls are checked`;
    const compiled = compileCondition(text);
    if (!compiled.ok) return `conditions["${scope}"] is not valid CEL: ${compiled.message}`;
  }
  return undefined;
}

/**
 * Attenuation: a token that carries conditions can hand on only tokens that carry each of them, the
 * same text on the same scope; without that a bound token could mint itself an unbound one.
 */
export function conditionsDropped(held: TokenConditions | undefined, issued: TokenConditions | undefined): string | undefined {
  return Object.entries(held ?? {}).find(([scope, text]) => issued?.[scope] !== text)?.[0];
}

const plans = new Map<string, ReturnType<typeof compileCondition>>();
const MAX_PLANS = 1000;

/** Each condition's plan, compiled once per text (a bounded cache: tokens carry few distinct texts). */
function planOf(text: string): ReturnType<typeof compileCondition> {
  let p = plans.get(text);
  if (p === undefined) {
    p = compileCondition(text);
    if (plans.size >= MAX_PLANS) plans.clear();
    plans.set(text, p);
  }
  return p;
}

/** The first condition bound to a scope that grants `required` and does not hold for this call, with why; or undefined. */
export function unmetCondition(
  conditions: TokenConditions | undefined,
  required: string,
  facts: CallFacts,
): { scope: string; condition: string; why: string } | undefined {
  let vars: CallVars | undefined;
  for (const [scope, text] of Object.entries(conditions ?? {})) {
    if (!scopeGrantsOne(scope, required)) continue;
    const p = planOf(text);
    if (!p.ok) return { scope, condition: text, why: `it is not valid CEL (${p.message})` };
    vars ??= new CallVars(facts);
    const m = evaluateCondition(p.evaluate, vars);
    if (m.matched === true) continue;
    return { scope, condition: text, why: m.matched === false ? 'it does not hold for this call' : `it could not be evaluated for this call (${m.message})` };
  }
  return undefined;
}
