import { describe, expect, it } from 'vitest';
import { conditionsDropped, tokenConditionsProblem, unmetCondition } from './conditions.ts';

const facts = (args: Record<string, unknown>) => ({
  server: 'bank',
  tool: 'transfer',
  args,
  caller: { sub: 'agent', scope: ['mcp:bank:transfer'], tenant: null },
  time: new Date(),
});

describe('conditions a token binds to its scopes', () => {
  it('lets a call through while its condition holds and names the scope and condition when it does not', () => {
    const cnd = { 'mcp:bank:transfer': 'args.amount < 1000' };
    expect(unmetCondition(cnd, 'mcp:bank:transfer', facts({ amount: 999 }))).toBeUndefined();
    expect(unmetCondition(cnd, 'mcp:bank:transfer', facts({ amount: 1000 }))).toEqual({
      scope: 'mcp:bank:transfer',
      condition: 'args.amount < 1000',
      why: 'it does not hold for this call',
    });
  });

  it('applies a condition on a glob to every tool it grants, and none to tools it does not', () => {
    const cnd = { 'mcp:bank:*': 'args.amount < 10' };
    expect(unmetCondition(cnd, 'mcp:bank:refund', facts({ amount: 50 }))?.scope).toBe('mcp:bank:*');
    expect(unmetCondition(cnd, 'mcp:mail:send', facts({ amount: 50 }))).toBeUndefined();
  });

  it('refuses a call whose arguments the condition cannot read, rather than letting it through', () => {
    expect(unmetCondition({ 'mcp:bank:transfer': 'args.amount < 1000' }, 'mcp:bank:transfer', facts({}))?.why).toMatch(/could not be evaluated/);
  });

  it('refuses to issue a condition on a scope the gateway does not check, or one that is not CEL', () => {
    expect(tokenConditionsProblem({ 'auth:token:create': 'true' })).toMatch(/not an MCP gateway tool scope/);
    expect(tokenConditionsProblem({ 'mcp:bank:transfer': 'args.amount <' })).toMatch(/not valid CEL/);
    expect(tokenConditionsProblem({ 'mcp:bank:transfer': 'args.amount < 1000' })).toBeUndefined();
  });

  it('names a held condition a token to be issued does not carry', () => {
    const held = { 'mcp:bank:transfer': 'args.amount < 1000' };
    expect(conditionsDropped(held, undefined)).toBe('mcp:bank:transfer');
    expect(conditionsDropped(held, { 'mcp:bank:transfer': 'args.amount < 100000' })).toBe('mcp:bank:transfer');
    expect(conditionsDropped(held, { ...held, 'mcp:bank:refund': 'false' })).toBeUndefined();
    expect(conditionsDropped(undefined, undefined)).toBeUndefined();
  });
});
