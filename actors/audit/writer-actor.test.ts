import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBus, createMemoryNetwork, type Bus } from '../../bus/index.ts';
import { subjects, type AuditInput } from '../../bus/index.ts';
import { openStorage, type Storage } from '../../storage/index.ts';
import { AuditWriterActor } from './writer-actor.ts';
import { verifyAuditChain } from './reader-actor.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

const entry = (id: string): AuditInput => ({
  id,
  timestamp: new Date().toISOString(),
  subject: 's',
  action: 'a:b',
  resource: 'r',
  result: 'allow',
  reason: 'test',
  tenantId: null,
});

describe('audit writer actor', () => {
  let storage: Storage;
  let bus: Bus;
  let actor: AuditWriterActor;
  beforeAll(async () => {
    storage = await openStorage({});
    bus = createBus(createMemoryNetwork().connect());
    actor = new AuditWriterActor({ bus, storage, holder: 'test' });
    await actor.start();
  }, machineTimeout(30_000));
  afterAll(async () => {
    await actor.stop();
    await bus.drain();
    await storage.close();
  });

  it('writes a retried entry once and answers the retry with the original record', async () => {
    const first = await bus.request(subjects.auditAppend, { entries: [entry('aud_retry0001'), entry('aud_retry0002')] });
    const retry = await bus.request(subjects.auditAppend, { entries: [entry('aud_retry0002'), entry('aud_retry0003')], retry: true });
    expect(first.ok && retry.ok).toBe(true);
    if (!first.ok || !retry.ok) return;
    expect(retry.value.records[0]).toEqual(first.value.records[1]);
    expect(retry.value.records[1]!.seq).toBe(first.value.records[1]!.seq + 1);
    expect(await verifyAuditChain(storage)).toMatchObject({ valid: true, checked: 3 });
  });

  it('writes an entry once when the same append arrives twice concurrently or repeats an id', async () => {
    const batch = { entries: [entry('aud_twice0001'), entry('aud_twice0001'), entry('aud_twice0002')] };
    const [a, b] = await Promise.all([bus.request(subjects.auditAppend, batch), bus.request(subjects.auditAppend, batch)]);
    expect([a, b], JSON.stringify([a, b])).toMatchObject([{ ok: true }, { ok: true }]);
    if (!a.ok || !b.ok) return;
    expect(a.value.records).toEqual(b.value.records);
    expect(a.value.records[0]).toEqual(a.value.records[1]);
    expect(await verifyAuditChain(storage)).toMatchObject({ valid: true, checked: 5 });
  });
});

describe('audit writer actor, a batch sent again while its first send commits (bus/carry.ts)', () => {
  it('answers both sends with the same records and writes each entry once', { timeout: machineTimeout(30_000) }, async () => {
    const storage = await openStorage({});
    const bus = createBus(createMemoryNetwork().connect());
    const actor = new AuditWriterActor({ bus, storage, holder: 'test' });
    await actor.start();
    try {
      const entries = Array.from({ length: 50 }, (_, i) => entry(`aud_carried${String(i).padStart(4, '0')}`));
      const sends = [bus.request(subjects.auditAppend, { entries })];
      // The carried sends arrive while the first is being committed, at several points of its commit.
      for (let i = 0; i < 5; i++) {
        await new Promise((r) => setImmediate(r));
        sends.push(bus.request(subjects.auditAppend, { entries, retry: true }));
      }
      const answers = await Promise.all(sends);
      expect(
        answers.map((a) => a.ok),
        JSON.stringify(answers.find((a) => !a.ok)),
      ).toEqual(sends.map(() => true));
      const records = answers.map((a) => (a.ok ? a.value.records : []));
      for (const r of records) expect(r).toEqual(records[0]);
      expect(await verifyAuditChain(storage)).toMatchObject({ valid: true, checked: 50 });
    } finally {
      await actor.stop();
      await bus.drain();
      await storage.close();
    }
  });
});
