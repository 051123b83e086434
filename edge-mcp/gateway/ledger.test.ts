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
});
