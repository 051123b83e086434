import { afterEach, describe, expect, it } from 'vitest';
import { createBus, createMemoryNetwork, type Bus } from '../../bus/index.ts';
import { subjects, type AuditInput } from '../../bus/index.ts';
import { AuditBatcher } from './sink.ts';

/**
 * The sink against a chain writer stand-in served on a real memory bus: it commits (remembers)
 * what it is sent, or fails every append while `failing` is set, as a wedged writer did.
 */
function harness(options: { stallMs?: number; effectWaitMs?: number } = {}) {
  const bus: Bus = createBus(createMemoryNetwork().connect());
  const committed: AuditInput[] = [];
  const lines: Array<{ level: string; o: Record<string, unknown>; m?: string }> = [];
  const writer = { failing: false };
  let now = 1_000_000;
  bus.serve(subjects.auditAppend, ({ data }) => {
    if (writer.failing) return { ok: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'append failed' } };
    committed.push(...data.entries);
    return { ok: true, value: { records: data.entries.map((e, i) => ({ id: e.id, seq: committed.length - data.entries.length + i + 1, hash: 'h' })) } };
  });
  const log = (level: string) => (o: object, m?: string) => lines.push({ level, o: o as Record<string, unknown>, ...(m !== undefined ? { m } : {}) });
  const sink = new AuditBatcher({
    bus,
    clock: () => now,
    logger: { info: log('info'), warn: log('warn'), error: log('error') },
    ...options,
  });
  return {
    bus,
    sink,
    committed,
    lines,
    writer,
    advance: (ms: number) => (now += ms),
    async close() {
      void sink.close();
      await bus.drain();
    },
  };
}

const entry = (reason = 'granted') => ({ subject: 'agent', action: 'a:b', resource: 'token GET /x', result: 'allow' as const, reason });

let current: ReturnType<typeof harness> | undefined;
const open = (options?: Parameters<typeof harness>[0]) => (current = harness(options));
afterEach(async () => {
  await current?.close();
  current = undefined;
});

describe('the audit sink', () => {
  it('turns unhealthy once its oldest entry has waited stallMs uncommitted, and healthy again once the trail takes it', async () => {
    const h = open({ stallMs: 10_000 });
    h.writer.failing = true;
    h.sink.record(entry());
    await new Promise((r) => setTimeout(r, 20));
    expect(h.sink.healthy()).toBe(true);
    h.advance(10_000);
    expect(h.sink.healthy()).toBe(false);
    h.writer.failing = false;
    expect(await h.sink.flush(5_000)).toBe(true);
    expect(h.sink.healthy()).toBe(true);
    expect(h.committed).toHaveLength(1);
  });

  it('answers a decision already taken within effectWaitMs even when the trail cannot take its entry, and commits it later', async () => {
    const h = open({ effectWaitMs: 100 });
    h.writer.failing = true;
    const started = performance.now();
    expect(await h.sink.recordEffect(entry('revoked'))).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(h.sink.backlog).toBe(1);
    h.writer.failing = false;
    expect(await h.sink.flush(5_000)).toBe(true);
    expect(h.committed.map((e) => e.reason)).toEqual(['revoked']);
    expect(await h.sink.recordEffect(entry('revoked again'))).toBe(true);
  });

  it('refuses at once to wait for a commit while unhealthy, rather than letting the caller time out', async () => {
    const h = open({ stallMs: 1_000 });
    h.writer.failing = true;
    h.sink.record(entry());
    h.advance(1_000);
    await expect(h.sink.recordAndWait(entry())).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });

  it('drops, and logs, an entry its own schema refuses instead of retrying the whole trail behind it forever', async () => {
    const h = open();
    const waited = h.sink.recordAndWait(entry('x'.repeat(2000)));
    h.sink.record(entry('fine'));
    await expect(waited).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(await h.sink.flush(2_000)).toBe(true);
    expect(h.committed.map((e) => e.reason)).toEqual(['fine']);
    expect(h.lines.find((l) => l.m === 'audit entry refused by its schema; dropped')?.o).toMatchObject({ problem: expect.stringContaining('/reason') });
  });

  it('logs, when closed, how many entries were not committed and which, and refuses entries recorded afterwards', async () => {
    const h = open();
    h.writer.failing = true;
    for (let i = 0; i < 3; i++) h.sink.record(entry());
    expect(await h.sink.flush(50)).toBe(false);
    h.sink.close();
    const lost = h.lines.find((l) => l.m === 'audit entries not committed at shutdown');
    expect(lost?.level).toBe('error');
    expect(lost?.o).toMatchObject({ pending: 3, first: { id: expect.stringMatching(/^aud_/) }, last: { id: expect.stringMatching(/^aud_/) } });
    await expect(h.sink.recordEffect(entry())).resolves.toBe(false);
    expect(h.lines.filter((l) => l.m === 'audit entry recorded after the sink closed; not committed')).toHaveLength(1);
  });
});

describe('the audit sink on a saturated machine (issue 34, item 6)', () => {
  it('stays healthy while its trail is far behind but moving, and turns unhealthy only once no append has succeeded for stallMs', async () => {
    // A chain writer that takes one entry per simulated second: a backlog of 30 entries is 30 s behind.
    const bus: Bus = createBus(createMemoryNetwork().connect());
    let now = 1_000_000;
    const pending: Array<() => void> = [];
    let committed = 0;
    let failing = false;
    bus.serve(subjects.auditAppend, async ({ data }) => {
      await new Promise<void>((release) => pending.push(release));
      if (failing) return { ok: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'append failed' } };
      committed += data.entries.length;
      return { ok: true, value: { records: data.entries.map((e, i) => ({ id: e.id, seq: committed - data.entries.length + i + 1, hash: 'h' })) } };
    });
    const sink = new AuditBatcher({ bus, clock: () => now, stallMs: 10_000, maxBatch: 1 });
    const next = async () => {
      while (pending.length === 0) await new Promise((r) => setImmediate(r));
      (pending.shift() as () => void)();
    };
    for (let i = 0; i < 30; i++) sink.record(entry());
    for (let i = 0; i < 25; i++) {
      now += 1_000;
      await next();
      expect(sink.healthy(), `${i + 1} s behind, still moving`).toBe(true);
    }
    expect(committed).toBeGreaterThanOrEqual(24);
    await expect(sink.admit(1_000)).resolves.toBeUndefined();
    // Now nothing succeeds: 10 s after the last success it is stalled.
    failing = true;
    await next();
    now += 9_000;
    expect(sink.healthy()).toBe(true);
    now += 1_000;
    expect(sink.healthy()).toBe(false);
    await expect(sink.admit(1_000)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    await sink.close();
    for (const release of pending.splice(0)) release();
    await bus.drain();
  });

  it('lets a decision wait for room in a full backlog rather than refusing it, and refuses only after the deadline', async () => {
    const h = harness({ stallMs: 10_000 });
    current = h;
    const full = new AuditBatcher({ bus: h.bus, maxBacklog: 2, clock: () => Date.now() });
    h.writer.failing = true;
    full.record(entry());
    full.record(entry());
    expect(full.healthy()).toBe(false);
    // Full but not stalled: the intake waits.
    const admitted = full.admit(10_000);
    await expect(full.admit(50)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: expect.stringContaining('behind') });
    h.writer.failing = false;
    expect(await full.flush(5_000)).toBe(true);
    await expect(admitted).resolves.toBeUndefined();
    await full.close();
  });
});

describe('the audit sink at a failover of its writer (issue 34, item 2)', () => {
  it('sends the batch in flight again, as a retry, as soon as a new writer leads, instead of waiting out its 3 s timeout', async () => {
    const network = createMemoryNetwork();
    const edge: Bus = createBus(network.connect());
    const writers: Bus = createBus(network.connect());
    const received: string[] = [];
    const hung: Array<() => void> = [];
    // The old leader took the batch and died before answering.
    const dead = writers.serve(
      subjects.auditAppend,
      ({ data }) => {
        received.push(`dead ${data.entries.length} retry=${data.retry === true}`);
        return new Promise<never>((_, reject) => hung.push(() => reject(new Error('the test is over'))));
      },
      { queue: 'chain-writer.audit' },
    );
    const sink = new AuditBatcher({ bus: edge });
    const started = Date.now();
    const durable = sink.recordAndWait(entry());
    while (received.length === 0) await new Promise((r) => setImmediate(r));
    await Promise.race([dead.unsubscribe(), new Promise((r) => setTimeout(r, 10))]);
    writers.serve(
      subjects.auditAppend,
      ({ data }) => {
        received.push(`new ${data.entries.length} retry=${data.retry === true}`);
        return { ok: true, value: { records: data.entries.map((e, i) => ({ id: e.id, seq: i + 1, hash: 'h' })) } };
      },
      { queue: 'chain-writer.audit' },
    );
    await writers.flush();
    writers.publish(subjects.auditWriterLeads, { holder: 'standby' });
    await durable;
    // Before the attempt timer (1 s) and far before the 3 s timeout: the announcement carried it.
    expect(Date.now() - started).toBeLessThan(1_000);
    // Three copies (a stopped leader would still take its share of them); one answer is the answer.
    expect(received).toEqual(['dead 1 retry=false', 'new 1 retry=true', 'new 1 retry=true', 'new 1 retry=true']);
    await sink.close();
    for (const release of hung.splice(0)) release();
    await edge.drain();
    await writers.drain();
  });
});
