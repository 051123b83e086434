import { describe, expect, it } from 'vitest';
import { executionSignedObject, type ExecutionRecord } from '../chain/index.ts';
import { explainRecord } from './explain.ts';

const base: ExecutionRecord = {
  seq: 3,
  id: 'exec_0123456789abcdef0123456789abcdef',
  timestamp: '2025-01-02T03:04:05.006Z',
  subject: 'agent-billing',
  scope: ['billing:refund'],
  module: 'billing',
  action: 'refund',
  outcome: 'failure',
  inputHash: 'a'.repeat(64),
  outputHash: 'd'.repeat(64),
  cost: { amount: 1250, currency: 'EUR', source: 'provider-invoice', unit: 'tokens', quantity: 3 },
  governance: { policyRef: 'p/refunds', policyVersion: '7', decision: 'DENIED', evidence: ['rule-4', 'ticket-9'], evaluatedBy: 'opa' },
  attested: { jti: '00000000-0000-4000-8000-000000000000', sub: 'agent-billing', scope: ['billing:*'], proven: true, tenantId: 'ten_acme' },
  prevHash: 'b'.repeat(64),
  keyId: 'ed25519-8ff5ee3f6cfe5545',
  hash: 'e'.repeat(64),
  signature: 'c2ln',
};

/** Whether a dotted field path names a signed field of the record (or a field of a signed object). */
function isSignedField(path: string): boolean {
  const signed = executionSignedObject(base);
  const [head, ...rest] = path.split('.') as [string, ...string[]];
  if (!Object.hasOwn(signed, head)) return false;
  const value = signed[head];
  if (rest.length === 0) return true;
  return rest.length === 1 && typeof value === 'object' && value !== null && Object.hasOwn(value, rest[0]!);
}

describe('plain-language explanation of a record', () => {
  it('builds every sentence only from signed fields, and names them', () => {
    const e = explainRecord(base);
    expect(e.sentences.length).toBeGreaterThanOrEqual(6);
    for (const s of e.sentences) {
      expect(s.fields.length).toBeGreaterThan(0);
      for (const f of s.fields) expect(isSignedField(f), `${f} in "${s.text}"`).toBe(true);
    }
    const text = e.sentences.map((s) => s.text).join(' ');
    expect(text).not.toContain(base.hash);
    expect(text).not.toContain(base.signature);
  });

  it('says what the record says, with claims called claims', () => {
    const text = explainRecord(base).sentences.map((s) => s.text);
    expect(text[0]).toBe(
      'Record 3 of the execution chain (exec_0123456789abcdef0123456789abcdef) was accepted by the suite at 2025-01-02T03:04:05.006Z. ' +
        'It says that the subject "agent-billing" performed the action "refund" in the module "billing", with the outcome "failure"; these are the recorder\'s claims.',
    );
    expect(text).toContain('It claims the action was taken under the scope "billing:refund".');
    expect(text.join(' ')).toContain('1250 minor units of "EUR" for 3 "tokens", according to the source "provider-invoice"');
    expect(text.join(' ')).toContain(
      'the policy "p/refunds" version "7", as evaluated by "opa" decided "DENIED", citing 2 pieces of evidence ("rule-4", "ticket-9")',
    );
    expect(text.join(' ')).toContain('issued with proof of the enrolled identity\'s private key, under the tenant "ten_acme"');
  });

  it('is deterministic: the same record gives the same words, and a changed field changes them', () => {
    expect(explainRecord(base)).toEqual(explainRecord(structuredClone(base)));
    expect(explainRecord({ ...base, outcome: 'success' })).not.toEqual(explainRecord(base));
  });

  it('says what is absent: no scope, no output, no cost, no governance', () => {
    const text = explainRecord({ ...base, scope: [], outputHash: null, cost: null, governance: null })
      .sentences.map((s) => s.text)
      .join(' ');
    expect(text).toContain('It claims no scope for the action.');
    expect(text).toContain('no output was recorded');
    expect(text).toContain('It carries no cost claim.');
    expect(text).toContain('It records no governance decision.');
  });

  it('quotes values, so that a value cannot pass for part of the sentence', () => {
    const text = explainRecord({ ...base, subject: 'x", with the outcome "success' }).sentences[0]!.text;
    expect(text).toContain('the subject "x\\", with the outcome \\"success"');
  });
});
