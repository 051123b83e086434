import { afterEach, describe, expect, test } from 'vitest';
import { createBus, createMemoryNetwork, executionClaim, subjects, type Bus, type RecordRequestData } from '../../../bus/index.ts';
import { createTraceSigner } from '../../../core/chain/index.ts';
import { signedChain } from '../../../testing/trace-format.ts';
import { carryAppends, type AppendCarrier } from './carried-append.ts';

const [record] = signedChain(createTraceSigner(undefined), 1);
const made = executionClaim({ subject: 'agent', scope: ['crm:write'], module: 'crm', action: 'update', input: { i: 1 }, outcome: 'success' });
if (!made.ok) throw new Error(made.message);
const append = (idempotencyKey?: string): RecordRequestData => ({
  claim: made.claim,
  attested: { jti: null, sub: 'agent', scope: ['execution:record'], proven: false, tenantId: null },
  timestamp: new Date().toISOString(),
  ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
});

let cleanup: Array<() => Promise<void> | void> = [];
/** A handler's answer that never comes while the test runs (a dead writer); released before the buses drain. */
const hung: Array<() => void> = [];
const never = () => new Promise<never>((_, reject) => hung.push(() => reject(new Error('the test is over'))));
afterEach(async () => {
  for (const release of hung.splice(0)) release();
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

/** An edge bus and a writer bus on one memory network; the writer's first server never answers (a dead leader). */
function setUp(deadlineMs: number): { edge: Bus; writer: Bus; carrier: AppendCarrier; received: string[] } {
  const network = createMemoryNetwork();
  const edge = createBus(network.connect());
  const writer = createBus(network.connect());
  const carrier = carryAppends(edge, { deadlineMs });
  const received: string[] = [];
  cleanup.push(
    () => carrier.stop(),
    () => edge.drain(),
    () => writer.drain(),
  );
  return { edge, writer, carrier, received };
}

describe('appends carried to the new writer', () => {
  test('an append with a key in flight when its writer dies is answered by the writer that takes the lease, long before the deadline', async () => {
    const { writer, carrier, received } = setUp(5000);
    // The dead leader: takes the request, never answers, then is gone.
    const deadServes = writer.serve(subjects.executionsRecord, ({ data }) => {
      received.push(`dead ${data.idempotencyKey}`);
      return never();
    });
    const started = Date.now();
    const answer = carrier.record(append('k-1'));
    while (received.length === 0) await new Promise((r) => setImmediate(r));
    await Promise.race([deadServes.unsubscribe(), new Promise((r) => setTimeout(r, 10))]);
    writer.serve(
      subjects.executionsRecord,
      ({ data }) => {
        received.push(`new ${data.idempotencyKey}`);
        return { ok: true, value: { record: record!, replayed: true } };
      },
      { queue: 'chain-writer.executions' },
    );
    writer.publish(subjects.executionsKeyPublished, { keyId: record!.keyId });
    const result = await answer;
    const elapsed = Date.now() - started;
    expect(result).toMatchObject({ ok: true, value: { record: { id: record!.id } } });
    // Sent again three times at once (a stopped leader would still take its share); one record, one answer.
    expect(received).toEqual(['dead k-1', 'new k-1', 'new k-1', 'new k-1']);
    expect(elapsed).toBeLessThan(1000);
  });

  test('an append without a key is never sent twice: it waits for its own answer', async () => {
    const { writer, carrier, received } = setUp(300);
    writer.serve(subjects.executionsRecord, ({ data }) => {
      received.push(`dead ${data.idempotencyKey ?? 'none'}`);
      return never();
    });
    const answer = carrier.record(append());
    while (received.length === 0) await new Promise((r) => setImmediate(r));
    writer.publish(subjects.executionsKeyPublished, { keyId: record!.keyId });
    const result = await answer;
    expect(result).toMatchObject({ ok: false, error: { code: 'SERVICE_UNAVAILABLE' }, transport: 'BUS_TIMEOUT' });
    expect(received).toEqual(['dead none']);
  });

  test('a carried append that finds no writer serving yet tries again until one does', async () => {
    const { writer, carrier, received } = setUp(5000);
    const deadServes = writer.serve(subjects.executionsRecord, ({ data }) => {
      received.push(`dead ${data.idempotencyKey}`);
      return never();
    });
    const answer = carrier.record(append('k-2'));
    while (received.length === 0) await new Promise((r) => setImmediate(r));
    void deadServes.unsubscribe();
    await new Promise((r) => setImmediate(r));
    // The key is announced before the writer subscribes (as ExecutionWriterActor does).
    writer.publish(subjects.executionsKeyPublished, { keyId: record!.keyId });
    await new Promise((r) => setTimeout(r, 60));
    writer.serve(subjects.executionsRecord, ({ data }) => {
      received.push(`new ${data.idempotencyKey}`);
      return { ok: true, value: { record: record!, replayed: false } };
    });
    expect(await answer).toMatchObject({ ok: true, value: { replayed: false } });
    expect(received).toEqual(['dead k-2', 'new k-2']);
  });

  test('a writer error is the answer: it is not sent again', async () => {
    const { writer, carrier, received } = setUp(5000);
    writer.serve(subjects.executionsRecord, ({ data }) => {
      received.push(`writer ${data.idempotencyKey}`);
      return { ok: false, error: { code: 'CONFLICT', message: 'Idempotency-Key was already used for a different execution' } };
    });
    expect(await carrier.record(append('k-3'))).toMatchObject({ ok: false, error: { code: 'CONFLICT' } });
    expect(received).toEqual(['writer k-3']);
  });
});
