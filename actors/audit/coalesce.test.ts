import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createBus, createMemoryNetwork, subjects, type AuditInput } from '../../bus/index.ts';
import { AuditBatcher } from './sink.ts';

/**
 * With a journal, an entry is durable once synced there: the chain's insert follows in batches, so
 * decisions answered one after another share one chain commit (one sync) instead of one each. Entries
 * someone waits on, and a read of the trail (`committed`), are sent at once. The chain writer is a
 * stand-in on a real memory bus that counts the append requests it is sent.
 */
const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((f) => rm(f, { recursive: true, force: true })));
});

function chain() {
  const bus = createBus(createMemoryNetwork().connect());
  const state = { requests: 0, committed: [] as AuditInput[] };
  bus.serve(subjects.auditAppend, ({ data }) => {
    state.requests++;
    state.committed.push(...data.entries);
    return { ok: true, value: { records: data.entries.map((e, i) => ({ id: e.id, seq: state.committed.length - data.entries.length + i + 1, hash: 'h' })) } };
  });
  return { bus, state };
}

async function journaled(o: { coalesceMs?: number } = {}) {
  const folder = join(await mkdtemp(join(tmpdir(), 'suite-coalesce-')), 'audit-journal');
  folders.push(folder);
  const { bus, state } = chain();
  const sink = new AuditBatcher({ bus, ...o });
  await sink.useJournal(folder);
  return { sink, state, bus };
}

const decision = (n: number) => ({ subject: `agent-${n}`, action: 'auth:token:validate', resource: 'token', result: 'allow' as const, reason: 'valid' });

describe('the audit sink with a journal', () => {
  it('answers decisions sent one after another once journaled, and commits them to the chain together', async () => {
    const { sink, state, bus } = await journaled({ coalesceMs: 10_000 });
    for (let n = 0; n < 20; n++) {
      sink.record(decision(n));
      await sink.durable();
    }
    // Twenty durable decisions answered one at a time, none of them yet a chain commit of its own.
    expect(state.requests).toBe(0);
    expect(await sink.flush(5_000)).toBe(true);
    expect(state.requests).toBe(1);
    expect(state.committed.map((e) => e.subject)).toEqual(Array.from({ length: 20 }, (_, n) => `agent-${n}`));
    await sink.close();
    await bus.drain();
  });

  it('sends at once an entry whose recorder waits for its commit, and answers recordAndWait once journaled', async () => {
    const { sink, state, bus } = await journaled({ coalesceMs: 60_000 });
    sink.record(decision(0));
    // Durable in the journal: the decision need not wait for the chain's backlog.
    await sink.recordAndWait(decision(1));
    expect(state.committed).toEqual([]);
    expect(await sink.recordEffect(decision(2))).toBe(true);
    expect(state.committed.map((e) => e.subject)).toEqual(['agent-0', 'agent-1', 'agent-2']);
    await sink.close();
    await bus.drain();
  });

  it('puts the decisions recorded so far in the chain before a read of the trail', async () => {
    const { sink, state, bus } = await journaled({ coalesceMs: 60_000 });
    sink.record(decision(0));
    sink.record(decision(1));
    await sink.durable();
    expect(state.committed).toEqual([]);
    await sink.committed(5_000);
    expect(state.committed.map((e) => e.subject)).toEqual(['agent-0', 'agent-1']);
    await sink.close();
    await bus.drain();
  });
});
