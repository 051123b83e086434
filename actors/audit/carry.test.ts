import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createBus, createMemoryNetwork, subjects, type AuditInput } from '../../bus/index.ts';
import { AuditBatcher } from './sink.ts';
import { AuditJournal } from './journal.ts';

/**
 * A carried entry (issue 34, item 1): the allow of an append travels with the record into its
 * commit, so the journal does not sync for it; when the write did not commit it, the journal takes
 * it before the answer. The chain writer is a stand-in on a real memory bus; the journal is real.
 */
const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((f) => rm(f, { recursive: true, force: true })));
});

async function journaled() {
  const folder = join(await mkdtemp(join(tmpdir(), 'suite-carry-')), 'audit-journal');
  folders.push(folder);
  const bus = createBus(createMemoryNetwork().connect());
  const committed: AuditInput[] = [];
  bus.serve(subjects.auditAppend, ({ data }) => {
    committed.push(...data.entries);
    return { ok: true, value: { records: data.entries.map((e, i) => ({ id: e.id, seq: committed.length - data.entries.length + i + 1, hash: 'h' })) } };
  });
  // A coalescing window longer than the test: nothing reaches the chain unless asked.
  const sink = new AuditBatcher({ bus, coalesceMs: 60_000 });
  await sink.useJournal(folder);
  /** What a restart would find in the journal. */
  const reopened = async () => {
    await sink.close();
    await bus.drain();
    const { journal, kept } = await AuditJournal.open(folder);
    await journal.close();
    return kept.map((e) => e.subject);
  };
  return { sink, committed, reopened };
}

const decision = (subject: string) => ({
  subject,
  action: 'execution:record',
  resource: 'token POST /executions',
  result: 'allow' as const,
  reason: 'granted',
});

describe('an audit entry carried by its write', () => {
  it('is not written to the journal when its write committed it, and still goes to the chain', async () => {
    const { sink, committed, reopened } = await journaled();
    const carried = sink.carry(decision('carried'));
    expect(carried?.entry.subject).toBe('carried');
    carried?.committedWithWrite();
    await carried?.durable();
    await sink.committed(5_000);
    expect(committed.map((e) => e.id)).toEqual([carried?.entry.id]);
    sink.carry(decision('carried-not-yet-sent'))?.committedWithWrite();
    // Its durable copy is the record's commit (audit_outbox), not the journal.
    expect(await reopened()).toEqual([]);
  });

  it('is journaled before the answer when its write did not commit it', async () => {
    const { sink, reopened } = await journaled();
    const carried = sink.carry(decision('refused-write'));
    await carried?.durable();
    expect(await reopened()).toEqual(['refused-write']);
  });

  it('does not hold up the durability of the decisions recorded after it', async () => {
    const { sink, reopened } = await journaled();
    sink.record(decision('before'));
    const carried = sink.carry(decision('in-flight'));
    sink.record(decision('after'));
    // The append is still in flight (neither committed nor failed): the others' answers need not wait for it.
    await sink.durable();
    carried?.committedWithWrite();
    expect(await reopened()).toEqual(['before', 'after']);
  });

  it('is recorded as usual when the sink has no journal (its chain commit is what answers wait for)', async () => {
    const bus = createBus(createMemoryNetwork().connect());
    const committed: AuditInput[] = [];
    bus.serve(subjects.auditAppend, ({ data }) => {
      committed.push(...data.entries);
      return { ok: true, value: { records: data.entries.map((e, i) => ({ id: e.id, seq: i + 1, hash: 'h' })) } };
    });
    const sink = new AuditBatcher({ bus });
    expect(sink.carry(decision('no-journal'))).toBeUndefined();
    await sink.durable();
    expect(committed.map((e) => e.subject)).toEqual(['no-journal']);
    await sink.close();
    await bus.drain();
  });
});
