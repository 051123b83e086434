import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { argsDigest, budgetCharges, decideCall, parsePolicy, type CallFacts, type Policy } from './index.ts';
import { decisionProblem, resolveHeld, type ApprovalState } from './index.ts';

const file = (rules: unknown[]) => JSON.stringify({ rules });
const policyOf = (rules: unknown[]): Policy => {
  const p = parsePolicy(file(rules));
  if (!p.ok) throw new Error(p.message);
  return p.policy;
};
const call = (over: Partial<CallFacts> = {}): CallFacts => ({
  server: 'bank',
  tool: 'transfer',
  args: { amount: 50, to: 'bob' },
  caller: { sub: 'agent-1', scope: ['mcp:bank:*'], tenant: null },
  time: new Date('2026-11-28T10:30:00Z'),
  ...over,
});

describe('the policy file', () => {
  it('is versioned by the SHA-256 of its bytes', () => {
    const text = file([{ server: 'bank', tool: '*', effect: 'allow' }]);
    const p = parsePolicy(text);
    expect(p.ok && p.policy.version).toMatch(/^[0-9a-f]{64}$/);
    const q = parsePolicy(`${text} `);
    expect(p.ok && q.ok && p.policy.version !== q.policy.version).toBe(true);
  });

  it('reads the example of docs/MCP.md, and decides by it as the page says', () => {
    const page = readFileSync(new URL('../../docs/MCP.md', import.meta.url), 'utf8');
    const example = /### The policy file[\s\S]*?```json\n([\s\S]*?)```/.exec(page)?.[1] as string;
    const p = parsePolicy(example);
    if (!p.ok) throw new Error(p.message);
    const at = (hour: number) => new Date(`2026-11-28T${String(hour).padStart(2, '0')}:00:00Z`);
    expect(decideCall(p.policy, call({ args: { amount: 5000, to: 'bob' }, time: at(12) })).effect).toBe('approve');
    expect(decideCall(p.policy, call({ args: { amount: 5, to: 'mallory' }, time: at(12) })).effect).toBe('deny');
    expect(decideCall(p.policy, call({ time: at(19) }))).toMatchObject({ effect: 'deny', rule: { name: 'office-hours' } });
    expect(decideCall(p.policy, call({ time: at(12) })).effect).toBe('allow');
    expect(p.policy.budgets).toHaveLength(2);
  });

  it('refuses a bad CEL expression naming the rule by index and name', () => {
    const p = parsePolicy(
      file([
        { server: 'bank', tool: '*', effect: 'allow' },
        { name: 'big', server: 'bank', tool: 'transfer', when: 'args.amount >', effect: 'deny', reason: 'x' },
      ]),
    );
    expect(p.ok).toBe(false);
    expect(!p.ok && p.message).toMatch(/^rule 1 \("big"\): when is not valid CEL/);
  });

  it('refuses a deny without a reason, an approve without approvers or ttl, an unknown effect and an unknown field', () => {
    const bad = (rule: unknown) => {
      const p = parsePolicy(file([rule]));
      return p.ok ? '' : p.message;
    };
    expect(bad({ server: 'bank', tool: 'x', effect: 'deny' })).toMatch(/rule 0: a deny rule needs a reason/);
    expect(bad({ server: 'bank', tool: 'x', effect: 'approve', ttl: '1h' })).toMatch(/needs approvers/);
    expect(bad({ server: 'bank', tool: 'x', effect: 'approve', approvers: 'approval:decide' })).toMatch(/needs a ttl/);
    expect(bad({ server: 'bank', tool: 'x', effect: 'maybe' })).toMatch(/effect must be/);
    expect(bad({ server: 'bank', tool: 'x', effect: 'allow', whne: 'true' })).toMatch(/unknown field "whne"/);
    expect(bad({ server: 'bank', tool: 'x', budget: { calls: 0, per: '1h' } })).toMatch(/budget.calls/);
    expect(parsePolicy('{').ok).toBe(false);
  });
});

describe('deciding a call', () => {
  const policy = policyOf([
    { name: 'big', server: 'bank', tool: 'transfer', when: 'args.amount >= 1000', effect: 'approve', approvers: 'bank:approve', ttl: '15m' },
    { name: 'no-mallory', server: 'bank', tool: 'trans*', when: 'args.to == "mallory"', effect: 'deny', reason: 'transfers to mallory are blocked' },
    { server: 'bank', tool: 'close_?ccount', effect: 'deny', reason: 'accounts are closed by staff' },
  ]);

  it('lets the first matching rule decide, and allows a call no rule matches', () => {
    expect(decideCall(policy, call())).toEqual({ effect: 'allow' });
    expect(decideCall(policy, call({ args: { amount: 5000, to: 'mallory' } }))).toMatchObject({
      effect: 'approve',
      rule: { index: 0, name: 'big' },
      approvers: 'bank:approve',
      ttlSeconds: 900,
    });
    expect(decideCall(policy, call({ args: { amount: 5, to: 'mallory' } }))).toEqual({
      effect: 'deny',
      rule: { index: 1, name: 'no-mallory' },
      reason: 'transfers to mallory are blocked',
    });
    expect(decideCall(policy, call({ tool: 'close_account' }))).toMatchObject({ effect: 'deny', rule: { index: 2 } });
    expect(decideCall(policy, call({ server: 'other' }))).toEqual({ effect: 'allow' });
  });

  it('refuses, naming the rule, a call its condition cannot be evaluated on', () => {
    expect(decideCall(policy, call({ args: { to: 'bob' } }))).toMatchObject({
      effect: 'deny',
      rule: { index: 0, name: 'big' },
      reason: expect.stringMatching(/could not be evaluated/),
    });
  });

  it('gives the condition the caller and the time', () => {
    const p = policyOf([
      {
        server: 'bank',
        tool: '*',
        when: '!caller.scope.exists(s, s == "bank:vip") && timestamp(time).getHours("UTC") >= 10',
        effect: 'deny',
        reason: 'after hours',
      },
    ]);
    expect(decideCall(p, call()).effect).toBe('deny');
    expect(decideCall(p, call({ caller: { sub: 'a', scope: ['bank:vip'], tenant: null } })).effect).toBe('allow');
    expect(decideCall(p, call({ time: new Date('2026-11-28T09:00:00Z') })).effect).toBe('allow');
  });
});

describe('budgets', () => {
  it('charges every matching budget in a window aligned to its period, per caller or per tenant', () => {
    const p = policyOf([
      { server: 'bank', tool: '*', budget: { calls: 3, per: '1h' } },
      { server: 'bank', tool: 'transfer', budget: { calls: 10, per: '1d', by: 'tenant' } },
    ]);
    const c = budgetCharges(p, call({ caller: { sub: 'a', scope: [], tenant: 't1' } }));
    expect(c.ok && c.charges.map((x) => [x.by, x.calls, x.windowStart.toISOString()])).toEqual([
      ['caller:a', 3, '2026-11-28T10:00:00.000Z'],
      ['tenant:t1', 10, '2026-11-28T00:00:00.000Z'],
    ]);
    expect(p.rules).toHaveLength(0);
  });
});

describe('the arguments digest', () => {
  it('is the same for the same arguments in any key order, and differs when one changes', () => {
    expect(argsDigest({ a: 1, b: [1, 2] })).toBe(argsDigest({ b: [1, 2], a: 1 }));
    expect(argsDigest({ a: 1 })).not.toBe(argsDigest({ a: 2 }));
  });
});

describe('an approval', () => {
  const now = new Date('2026-11-28T10:00:00Z');
  const a = (status: ApprovalState['status'], expiresAt = new Date('2026-11-28T10:15:00Z')): ApprovalState => ({
    id: 'apr_1',
    status,
    expiresAt,
    callerSub: 'agent-1',
    server: 'bank',
    tool: 'transfer',
    argsDigest: 'd',
    policyVersion: 'v',
  });

  it('resolves a held call: pending waits, approved runs, denied stays denied, expired or used starts anew', () => {
    expect(resolveHeld(undefined, now)).toEqual({ kind: 'new' });
    expect(resolveHeld(a('pending'), now)).toEqual({ kind: 'pending', id: 'apr_1' });
    expect(resolveHeld(a('approved'), now)).toEqual({ kind: 'run', id: 'apr_1' });
    expect(resolveHeld(a('denied'), now)).toEqual({ kind: 'denied', id: 'apr_1' });
    expect(resolveHeld(a('used'), now)).toEqual({ kind: 'new' });
    expect(resolveHeld(a('approved', now), now)).toEqual({ kind: 'new' });
  });

  it('is decided once, while pending, and never by its own caller', () => {
    expect(decisionProblem(a('pending'), 'alice', now)).toBeUndefined();
    expect(decisionProblem(a('pending'), 'agent-1', now)?.code).toBe('CAPABILITY_INSUFFICIENT');
    expect(decisionProblem(a('approved'), 'alice', now)?.code).toBe('CONFLICT');
    expect(decisionProblem(a('pending', now), 'alice', now)?.message).toMatch(/expired/);
  });
});
