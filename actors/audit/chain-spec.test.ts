import { describe, expect, it } from 'vitest';
import { auditHash, type AuditFields } from '../../core/chain/index.ts';
import { auditChainSpec } from './chain-spec.ts';

describe('the audit chain spec', () => {
  it('seals an entry with a lone surrogate once it is made well-formed, and hashes what it stored', () => {
    const f: AuditFields = {
      seq: 1,
      id: 'a',
      timestamp: 't',
      subject: 'agent\ufffd',
      action: 'a',
      resource: 'r',
      result: 'allow',
      reason: 'x',
      tenantId: null,
      prevHash: 'p',
    };
    const sealed = auditChainSpec.seal(
      { id: 'a', timestamp: 't', subject: 'agent\ud800', action: 'a', resource: 'r', result: 'allow', reason: 'x', tenantId: null },
      1,
      'p',
    );
    expect(sealed.subject).toBe('agent\ufffd');
    expect(sealed.hash).toBe(auditHash(f));
  });
});
