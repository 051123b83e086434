import { celEnv, isCelError, parse, plan } from '@bufbuild/cel';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { budgetCharges, decideCall, parsePolicy, type CallFacts, type Decision, type Policy } from './index.ts';

const policyOf = (rules: unknown[]): Policy => {
  const p = parsePolicy(JSON.stringify({ rules }));
  if (!p.ok) throw new Error(p.message);
  return p.policy;
};

/**
 * The reference: every rule of the file in order, its server and tool tested on each call, its
 * `when` planned on its own and given the call as plain objects (the library's own conversion).
 */
function linearScan(rules: ReadonlyArray<Record<string, unknown>>, f: CallFacts) {
  const glob = (g: string) => new RegExp(`^${g.replace(/[.-]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
  const matches = (r: Record<string, unknown>): true | false | string => {
    if (r.server !== f.server || !glob(r.tool as string).test(f.tool)) return false;
    if (r.when === undefined) return true;
    const v = plan(
      celEnv(),
      parse(r.when as string),
    )({
      args: f.args as never,
      time: f.time.toISOString(),
      server: f.server,
      tool: f.tool,
      caller: { sub: f.caller.sub, scope: [...f.caller.scope], tenant: f.caller.tenant } as never,
    });
    if (typeof v === 'boolean') return v;
    return isCelError(v) ? v.message : 'the condition did not give a boolean';
  };
  const ref = (i: number) => (typeof rules[i]?.name === 'string' ? { index: i, name: rules[i]?.name as string } : { index: i });
  let decision: Decision = { effect: 'allow' };
  for (const [i, r] of rules.entries()) {
    if (r.budget !== undefined) continue;
    const m = matches(r);
    if (m === false) continue;
    if (typeof m === 'string') decision = { effect: 'deny', rule: ref(i), reason: `its condition could not be evaluated for this call (${m})` };
    else if (r.effect === 'allow') decision = { effect: 'allow', rule: ref(i) };
    else if (r.effect === 'deny') decision = { effect: 'deny', rule: ref(i), reason: r.reason as string };
    else decision = { effect: 'approve', rule: ref(i), approvers: r.approvers as string, ttlSeconds: 900 };
    break;
  }
  const charged: Array<{ index: number; by: string }> = [];
  let refused: number | undefined;
  for (const [i, r] of rules.entries()) {
    if (r.budget === undefined) continue;
    const m = matches(r);
    if (m === false) continue;
    if (typeof m === 'string') {
      refused = i;
      break;
    }
    const by = (r.budget as { by: string }).by === 'tenant' && f.caller.tenant !== null ? `tenant:${f.caller.tenant}` : `caller:${f.caller.sub}`;
    charged.push({ index: i, by });
  }
  return { decision, budgets: refused !== undefined ? { refused } : { charged } };
}

const WHENS = [
  'args.n > 5',
  'args.n < 3',
  'has(args.m) && args.m == "k"',
  // A missing field is an evaluation error: the call is refused (fail closed), never skipped past.
  'args.m == "k"',
  'caller.tenant == "t1"',
  '"s1" in caller.scope',
  'tool == "x" && server == "a"',
  'has(args.list) && args.list.exists(v, v.k == 1)',
  'has(args.nested) && args.nested.a.b == 2',
  'timestamp(time).getHours("UTC") >= 12',
  // Not a boolean: an error too.
  'args.n',
];

const rule = fc.record(
  {
    server: fc.constantFrom('a', 'b'),
    tool: fc.constantFrom('x', 'y', 'xy', 'x*', '*', '?y', 'x?'),
    when: fc.constantFrom(...WHENS),
    kind: fc.constantFrom('allow', 'deny', 'approve', 'budget-caller', 'budget-tenant'),
    named: fc.boolean(),
  },
  { requiredKeys: ['server', 'tool', 'kind', 'named'] },
);
const written = (r: { server: string; tool: string; when?: string; kind: string; named: boolean }, i: number): Record<string, unknown> => ({
  ...(r.named ? { name: `r${i}` } : {}),
  server: r.server,
  tool: r.tool,
  ...(r.when !== undefined ? { when: r.when } : {}),
  ...(r.kind === 'allow'
    ? { effect: 'allow' }
    : r.kind === 'deny'
      ? { effect: 'deny', reason: `reason ${i}` }
      : r.kind === 'approve'
        ? { effect: 'approve', approvers: 'bank:approve', ttl: '15m' }
        : { budget: { calls: 3, per: '1h', by: r.kind === 'budget-tenant' ? 'tenant' : 'caller' } }),
});

const call: fc.Arbitrary<CallFacts> = fc.record({
  server: fc.constantFrom('a', 'b', 'c'),
  tool: fc.constantFrom('x', 'y', 'xy', 'xx', 'z'),
  args: fc.record(
    {
      n: fc.integer({ min: 0, max: 10 }),
      m: fc.constantFrom('k', 'j'),
      list: fc.array(fc.record({ k: fc.integer({ min: 0, max: 2 }) }, { noNullPrototype: true }), { maxLength: 3 }),
      nested: fc.record({ a: fc.record({ b: fc.integer({ min: 1, max: 3 }) }, { noNullPrototype: true }) }, { noNullPrototype: true }),
    },
    // Arguments as JSON.parse gives them: plain objects.
    { requiredKeys: [], noNullPrototype: true },
  ),
  caller: fc.record({ sub: fc.constant('agent'), scope: fc.subarray(['s1', 's2']), tenant: fc.constantFrom('t1', null) }),
  time: fc.date({ min: new Date('2026-01-01T00:00:00Z'), max: new Date('2026-12-31T00:00:00Z'), noInvalidDate: true }),
});

describe('the rule index', () => {
  it('decides every call and charges every budget as a scan of the whole file in order would, for any file and call', () => {
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 30 }), fc.array(call, { minLength: 1, maxLength: 8 }), (raw, calls) => {
        const rules = raw.map(written);
        const policy = policyOf(rules);
        for (const f of calls) {
          const expected = linearScan(rules, f);
          expect(decideCall(policy, f)).toEqual(expected.decision);
          const charges = budgetCharges(policy, f);
          if ('refused' in expected.budgets) expect(charges.ok ? undefined : charges.rule.index).toBe(expected.budgets.refused);
          else expect(charges.ok && charges.charges.map((c) => ({ index: c.rule.index, by: c.by }))).toEqual(expected.budgets.charged);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps file order between exact names and globs, across servers', () => {
    const policy = policyOf([
      { server: 'b', tool: 'x', effect: 'deny', reason: 'server b' },
      { server: 'a', tool: 'x*', when: 'args.n > 5', effect: 'deny', reason: 'glob first' },
      { server: 'a', tool: 'x', effect: 'deny', reason: 'exact second' },
      { server: 'a', tool: '*', effect: 'allow' },
    ]);
    const f = (server: string, tool: string, n: number): CallFacts => ({
      server,
      tool,
      args: { n },
      caller: { sub: 'agent', scope: [], tenant: null },
      time: new Date(),
    });
    expect(decideCall(policy, f('a', 'x', 9))).toMatchObject({ effect: 'deny', reason: 'glob first' });
    expect(decideCall(policy, f('a', 'x', 1))).toMatchObject({ effect: 'deny', reason: 'exact second' });
    expect(decideCall(policy, f('a', 'xz', 1))).toEqual({ effect: 'allow', rule: { index: 3 } });
    expect(decideCall(policy, f('b', 'x', 1))).toMatchObject({ effect: 'deny', reason: 'server b' });
    expect(decideCall(policy, f('b', 'y', 1))).toEqual({ effect: 'allow' });
  });

  it('answers alike past the number of tool names it keeps', () => {
    const policy = policyOf([{ server: 'a', tool: 't-1*', effect: 'deny', reason: 'r' }]);
    const f = (tool: string): CallFacts => ({ server: 'a', tool, args: {}, caller: { sub: 'agent', scope: [], tenant: null }, time: new Date() });
    for (let i = 0; i < 5000; i++) expect(decideCall(policy, f(`t-${i}`)).effect).toBe(String(i).startsWith('1') ? 'deny' : 'allow');
  });
});

describe("a call's CEL variables", () => {
  it('read arguments too large to convert ahead as the library reads them', () => {
    const policy = policyOf([{ server: 'a', tool: 'x', when: 'args.items.size() == 5000 && args.items[4999].k == 1', effect: 'deny', reason: 'big' }]);
    const items = Array.from({ length: 5000 }, () => ({ k: 1 }));
    const f: CallFacts = { server: 'a', tool: 'x', args: { items }, caller: { sub: 'agent', scope: [], tenant: null }, time: new Date() };
    expect(decideCall(policy, f).effect).toBe('deny');
  });
});
