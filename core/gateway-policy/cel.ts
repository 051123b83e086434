import { celEnv, celList, celMap, isCelError, parse, plan, type CelInput } from '@bufbuild/cel';

/**
 * CEL conditions over one upstream call: a rule's `when` (policy.ts) and a condition a token binds to
 * a scope (conditions.ts). Each is planned once; each call's variables are made once
 * (`CallVars`) and shared by every condition evaluated on that call.
 */

/** What a condition sees: the call's arguments as sent, the caller, and the time (RFC 3339). */
export interface CallFacts {
  readonly server: string;
  /** The upstream's own name for the tool (`echo`, not `everything__echo`). */
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly caller: { readonly sub: string; readonly scope: readonly string[]; readonly tenant: string | null };
  readonly time: Date;
}

/**
 * Nested argument entries converted to CEL values ahead, at most, per call. Past it a value is left as
 * sent and the library converts it at each use (as it does every value it is given as plain JSON), so
 * a call with large arguments costs no more than before, and small ones are converted once.
 */
const AHEAD = 1024;

/** `v` as CEL values (maps and lists of them), within `budget` entries; what does not fit is left to the library. */
function ahead(v: unknown, budget: { left: number }): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    if (v.length > budget.left) return v;
    budget.left -= v.length;
    return celList(v.map((x) => ahead(x, budget)) as CelInput[]);
  }
  // Only plain objects (JSON's): anything else (bytes, a Map) is the library's to convert.
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return v;
  const keys = Object.keys(v);
  if (keys.length > budget.left) return v;
  budget.left -= keys.length;
  return celMap(new Map(keys.map((k) => [k, ahead((v as Record<string, unknown>)[k], budget) as CelInput])));
}

/**
 * The variables of one call as CEL reads them (`args`, `caller`, `time`, `server`, `tool`). Each is
 * converted at its first use and kept: given plain objects, the library would convert `args` and
 * `caller` again at every use, in every condition (a new map of their entries each time), and the
 * time would be formatted once per rule.
 */
export class CallVars {
  readonly server: string;
  readonly tool: string;
  readonly #facts: CallFacts;
  #args: CelInput | undefined;
  #caller: CelInput | undefined;
  #time: string | undefined;

  constructor(facts: CallFacts) {
    this.#facts = facts;
    this.server = facts.server;
    this.tool = facts.tool;
  }

  get args(): CelInput {
    if (this.#args === undefined) {
      const a = this.#facts.args;
      const budget = { left: AHEAD };
      // The top level always: the library would convert it whole at every use anyway.
      this.#args = celMap(new Map(Object.keys(a).map((k) => [k, ahead(a[k], budget) as CelInput])));
    }
    return this.#args;
  }

  get caller(): CelInput {
    if (this.#caller === undefined) {
      const c = this.#facts.caller;
      this.#caller = celMap(
        new Map<string, CelInput>([
          ['sub', c.sub],
          ['scope', celList(c.scope)],
          ['tenant', c.tenant],
        ]),
      );
    }
    return this.#caller;
  }

  get time(): string {
    this.#time ??= this.#facts.time.toISOString();
    return this.#time;
  }
}

/** A condition planned once; evaluated over a call's variables. */
export type Condition = (vars: CallVars) => unknown;

/** One environment for every condition: the library keeps one planner per environment. */
const env = celEnv();

/** Plan a CEL condition over a call's variables, or say why it is not valid CEL. */
export function compileCondition(text: string): { ok: true; evaluate: Condition } | { ok: false; message: string } {
  try {
    const evaluate = plan(env, parse(text));
    // The library reads each variable by name from the object it is given: here, CallVars' getters.
    return { ok: true, evaluate: (vars) => evaluate(vars as unknown as Record<string, CelInput>) };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}

export type RuleMatch = { matched: true } | { matched: false } | { matched: 'error'; message: string };

const HOLDS: RuleMatch = { matched: true };
const FAILS: RuleMatch = { matched: false };

/** Whether a condition holds for a call: true, false, or why it could not be evaluated (not a boolean, a missing field). */
export function evaluateCondition(evaluate: Condition, vars: CallVars): RuleMatch {
  let value: unknown;
  try {
    value = evaluate(vars);
  } catch (err) {
    value = err;
  }
  if (value === true) return HOLDS;
  if (value === false) return FAILS;
  if (isCelError(value) || value instanceof Error) return { matched: 'error', message: (value as Error).message };
  return { matched: 'error', message: 'the condition did not give a boolean' };
}
