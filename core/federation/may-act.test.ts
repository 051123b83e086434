import { describe, expect, it } from 'vitest';
import { mayActRefusal, type ActingParty } from './may-act.ts';

const K8S = 'https://kubernetes.example';
const SUITE = 'https://suite.example';
const outside = (issuer: string, sub: string): ActingParty => ({ subject: `${issuer}#${sub}`, issuer, externalSub: sub });
const suite = (sub: string): ActingParty => ({ subject: sub, issuer: SUITE, externalSub: sub });

describe('may_act (RFC 8693 §4.4)', () => {
  it('lets any actor act when the subject token has no may_act claim', () => {
    expect(mayActRefusal(undefined, K8S, suite('agent-7'))).toBeUndefined();
  });

  it("with iss, allows exactly that issuer's sub and refuses the same sub from another issuer", () => {
    const claim = { iss: K8S, sub: 'system:serviceaccount:ops:runner' };
    expect(mayActRefusal(claim, K8S, outside(K8S, 'system:serviceaccount:ops:runner'))).toBeUndefined();
    expect(mayActRefusal(claim, K8S, outside('https://other.example', 'system:serviceaccount:ops:runner'))).toMatch(/not the party/);
    expect(mayActRefusal(claim, K8S, suite('system:serviceaccount:ops:runner'))).toMatch(/not the party/);
    expect(mayActRefusal({ iss: SUITE, sub: 'agent-7' }, K8S, suite('agent-7'))).toBeUndefined();
  });

  it("without iss, matches the actor's suite subject, or its own sub when it comes from the subject token's issuer", () => {
    expect(mayActRefusal({ sub: 'agent-7' }, K8S, suite('agent-7'))).toBeUndefined();
    expect(mayActRefusal({ sub: `${K8S}#ci` }, 'https://ci.example', outside(K8S, 'ci'))).toBeUndefined();
    expect(mayActRefusal({ sub: 'ci' }, K8S, outside(K8S, 'ci'))).toBeUndefined();
    expect(mayActRefusal({ sub: 'ci' }, K8S, outside('https://other.example', 'ci'))).toMatch(/not the party/);
    expect(mayActRefusal({ sub: 'agent-7' }, K8S, suite('agent-8'))).toMatch(/not the party/);
  });

  it.each([
    ['a string', 'agent-7'],
    ['an array', [{ sub: 'a' }]],
    ['null', null],
    ['no sub', { iss: K8S }],
    ['an empty sub', { sub: '' }],
    ['a numeric iss', { sub: 'a', iss: 1 }],
  ])('refuses a malformed claim: %s', (_name, claim) => {
    expect(mayActRefusal(claim, K8S, suite('a'))).toMatch(/may_act claim/);
  });
});
