import { describe, expect, it } from 'vitest';
import { CallLedger, RECENT_CALLS } from './ledger.ts';

describe('CallLedger', () => {
  it('tallies calls per upstream and name, keeping the latest trace id of each', () => {
    const ledger = new CallLedger();
    ledger.record('files', 'read_text_file', true, 'exec_1');
    ledger.record('everything', 'echo', true, 'exec_2');
    ledger.record('everything', 'echo', false, 'exec_3');
    const { calls } = ledger.snapshot();
    expect(calls.map((c) => [c.upstream, c.name, c.success, c.failure, c.lastTraceId])).toEqual([
      ['everything', 'echo', 1, 1, 'exec_3'],
      ['files', 'read_text_file', 1, 0, 'exec_1'],
    ]);
  });

  it('keeps only the latest calls, newest first', () => {
    const ledger = new CallLedger();
    for (let i = 0; i < RECENT_CALLS + 5; i++) ledger.record('everything', 'echo', i % 2 === 0, `exec_${i}`);
    const { recent } = ledger.snapshot();
    expect(recent).toHaveLength(RECENT_CALLS);
    expect(recent[0]).toMatchObject({ traceId: `exec_${RECENT_CALLS + 4}`, outcome: 'success' });
    expect(recent.at(-1)?.traceId).toBe('exec_5');
  });

  it("shows a tenant its own calls only, while the whole view sums every tenant's", () => {
    const ledger = new CallLedger();
    ledger.record('everything', 'echo', true, 'exec_a', 'ten_a');
    ledger.record('everything', 'echo', false, 'exec_b', 'ten_b');
    ledger.record('everything', 'echo', true, 'exec_u');
    const b = ledger.snapshot({ tenantId: 'ten_b' });
    expect(b.calls.map((c) => [c.name, c.success, c.failure, c.lastTraceId])).toEqual([['echo', 0, 1, 'exec_b']]);
    expect(b.recent.map((r) => r.traceId)).toEqual(['exec_b']);
    expect(ledger.snapshot({ tenantId: 'ten_c' })).toMatchObject({ calls: [], recent: [] });
    const all = ledger.snapshot();
    expect(all.calls.map((c) => [c.name, c.success, c.failure, c.lastTraceId])).toEqual([['echo', 2, 1, 'exec_u']]);
    expect(all.recent.map((r) => r.traceId)).toEqual(['exec_u', 'exec_b', 'exec_a']);
  });

  it("keeps a quiet tenant's latest calls when a busy tenant fills the whole view", () => {
    const ledger = new CallLedger();
    ledger.record('everything', 'echo', true, 'exec_quiet', 'ten_quiet');
    for (let i = 0; i < RECENT_CALLS; i++) ledger.record('everything', 'echo', true, `exec_${i}`, 'ten_busy');
    expect(ledger.snapshot().recent.map((r) => r.traceId)).not.toContain('exec_quiet');
    expect(ledger.snapshot({ tenantId: 'ten_quiet' }).recent.map((r) => r.traceId)).toEqual(['exec_quiet']);
  });
});
