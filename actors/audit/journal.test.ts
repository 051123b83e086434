import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createBus, createMemoryNetwork, subjects, type AuditInput } from '../../bus/index.ts';
import { AuditBatcher } from './sink.ts';

/**
 * The sink's journal (journal.ts): an answered decision's entry survives a chain that cannot take
 * it, a shutdown during that outage, and the process's death; the next sink on the folder commits
 * it first, in order, as a retry (the writer skips ids it already has). The chain writer is a
 * stand-in on a real memory bus that commits (remembers) what it is sent, or refuses while `down`.
 */
const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((f) => rm(f, { recursive: true, force: true })));
});

function chain() {
  const bus = createBus(createMemoryNetwork().connect());
  const state = { down: false, committed: [] as AuditInput[], retries: 0 };
  bus.serve(subjects.auditAppend, ({ data }) => {
    if (state.down) return { ok: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'storage down' } };
    if (data.retry === true) state.retries++;
    const fresh = data.entries.filter((e) => !state.committed.some((c) => c.id === e.id));
    state.committed.push(...fresh);
    return { ok: true, value: { records: data.entries.map((e, i) => ({ id: e.id, seq: i + 1, hash: 'h' })) } };
  });
  return { bus, state };
}

const decision = (n: number) => ({ subject: `agent-${n}`, action: 'auth:token:validate', resource: 'token', result: 'allow' as const, reason: 'valid' });

describe('the audit journal', () => {
  it('keeps the entries of decisions answered during a storage outage across a shutdown, and the next sink commits them first, in order', async () => {
    const folder = join(await mkdtemp(join(tmpdir(), 'suite-journal-')), 'audit-journal');
    folders.push(folder);
    const { bus, state } = chain();
    const first = new AuditBatcher({ bus, durableWaitMs: 30_000 });
    await first.useJournal(folder);
    state.down = true;
    for (let n = 0; n < 5; n++) first.record(decision(n));
    // Durable (synced to the journal) though the chain has none of them: the decisions may be answered.
    await first.durable();
    expect(state.committed).toEqual([]);
    await first.close();

    state.down = false;
    const second = new AuditBatcher({ bus });
    expect(await second.useJournal(folder)).toBe(5);
    second.record(decision(5));
    expect(await second.flush(10_000)).toBe(true);
    expect(state.committed.map((e) => e.subject)).toEqual(['agent-0', 'agent-1', 'agent-2', 'agent-3', 'agent-4', 'agent-5']);
    expect(state.retries).toBeGreaterThan(0);
    await second.close();
    // A clean stop with everything committed leaves the journal empty.
    expect(await readFile(join(folder, 'entries.jsonl'), 'utf8')).toBe('');
    await bus.drain();
  });

  it('skips a line cut short by a kill (never synced, so never answered) and commits the entries before it', async () => {
    const folder = join(await mkdtemp(join(tmpdir(), 'suite-journal-')), 'audit-journal');
    folders.push(folder);
    const { bus, state } = chain();
    const first = new AuditBatcher({ bus });
    await first.useJournal(folder);
    state.down = true;
    first.record(decision(0));
    first.record(decision(1));
    await first.durable();
    await first.close();
    await appendFile(join(folder, 'entries.jsonl'), '{"id":"aud_torn","timest');

    state.down = false;
    const lines: string[] = [];
    const second = new AuditBatcher({ bus, logger: { info: () => {}, warn: (_o, m) => lines.push(String(m)), error: (_o, m) => lines.push(String(m)) } });
    expect(await second.useJournal(folder)).toBe(2);
    expect(await second.flush(10_000)).toBe(true);
    expect(state.committed.map((e) => e.subject)).toEqual(['agent-0', 'agent-1']);
    expect(lines.some((l) => l.includes('unreadable lines skipped'))).toBe(true);
    await second.close();
    await bus.drain();
  });

  it('is held by one sink at a time: a second process on the same folder gets none', async () => {
    const folder = join(await mkdtemp(join(tmpdir(), 'suite-journal-')), 'audit-journal');
    folders.push(folder);
    const { bus } = chain();
    const first = new AuditBatcher({ bus });
    await first.useJournal(folder);
    await expect(new AuditBatcher({ bus }).useJournal(folder)).rejects.toMatchObject({ code: 'DATABASE_IN_USE' });
    await first.close();
    await bus.drain();
  });
});
