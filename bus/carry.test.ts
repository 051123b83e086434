import { afterEach, describe, expect, test } from 'vitest';
import { carrier } from './carry.ts';
import { createBus } from './bus.ts';
import { createMemoryNetwork } from './memory-transport.ts';
import { subjects, type AuditInput } from './subjects.ts';
import type { Bus } from './types.ts';

const entry: AuditInput = {
  id: 'aud_carry0001',
  timestamp: new Date().toISOString(),
  subject: 's',
  action: 'a:b',
  resource: 'r',
  result: 'allow',
  reason: 'test',
  tenantId: null,
};
const appended = { ok: true as const, value: { records: [{ id: entry.id, seq: 1, hash: 'h' }] } };

let cleanup: Array<() => Promise<void> | void> = [];
const hung: Array<() => void> = [];
/** An answer that never comes while the test runs (a stopped server); released before the buses drain. */
const never = () => new Promise<never>((_, reject) => hung.push(() => reject(new Error('the test is over'))));
afterEach(async () => {
  for (const release of hung.splice(0)) release();
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

function buses(): { client: Bus; server: Bus } {
  const network = createMemoryNetwork();
  const client = createBus(network.connect());
  const server = createBus(network.connect());
  cleanup.push(
    () => client.drain(),
    () => server.drain(),
  );
  return { client, server };
}

/** A new server announces itself, and the client's carrier has heard it (a probe on the client's bus hears it in the same delivery). */
async function announce(client: Bus, server: Bus): Promise<void> {
  let heard = false;
  const probe = client.subscribe(subjects.auditWriterLeads, () => {
    heard = true;
  });
  await client.flush();
  server.publish(subjects.auditWriterLeads, { holder: 'standby' });
  while (!heard) await new Promise((r) => setImmediate(r));
  await probe.unsubscribe();
}

/** A stopped server first in the queue group (the memory bus takes turns), a living one second. */
function stoppedThenLiving(server: Bus): string[] {
  const received: string[] = [];
  server.serve(
    subjects.auditAppend,
    ({ data }) => {
      received.push(`stopped retry=${data.retry === true}`);
      return never();
    },
    { queue: 'writer' },
  );
  server.serve(
    subjects.auditAppend,
    ({ data }) => {
      received.push(`living retry=${data.retry === true}`);
      return appended;
    },
    { queue: 'writer' },
  );
  return received;
}

describe('requests carried to another server', () => {
  test('after an announcement, a request a stopped server took is sent again after attemptMs, as `again` says, and the living server answers it long before the deadline', async () => {
    const { client, server } = buses();
    const received = stoppedThenLiving(server);
    const carried = carrier(client, { announcedBy: [subjects.auditWriterLeads], attemptMs: 200 });
    cleanup.push(() => carried.stop());
    await announce(client, server);
    const started = Date.now();
    const result = await carried.request(subjects.auditAppend, { entries: [entry] }, { deadlineMs: 5000, again: { entries: [entry], retry: true } });
    expect(result).toEqual(appended);
    expect(received).toEqual(['stopped retry=false', 'living retry=true']);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test('without attemptMs the same request waits for its deadline: nothing else carries it', async () => {
    const { client, server } = buses();
    const received = stoppedThenLiving(server);
    const carried = carrier(client, { announcedBy: [subjects.auditWriterLeads] });
    cleanup.push(() => carried.stop());
    await announce(client, server);
    const result = await carried.request(subjects.auditAppend, { entries: [entry] }, { deadlineMs: 400 });
    expect(result).toMatchObject({ ok: false, transport: 'BUS_TIMEOUT' });
    expect(received).toEqual(['stopped retry=false']);
  });

  test('with no announcement seen, an unanswered attempt is not sent again: a slow server is not given more work', async () => {
    const { client, server } = buses();
    const received = stoppedThenLiving(server);
    const carried = carrier(client, { announcedBy: [subjects.auditWriterLeads], attemptMs: 100 });
    cleanup.push(() => carried.stop());
    const result = await carried.request(subjects.auditAppend, { entries: [entry] }, { deadlineMs: 450 });
    expect(result).toMatchObject({ ok: false, transport: 'BUS_TIMEOUT' });
    expect(received).toEqual(['stopped retry=false']);
  });

  test('an announcement sends every request in flight again at once, and the first answer is the answer', async () => {
    const { client, server } = buses();
    const received: string[] = [];
    const dead = server.serve(subjects.auditAppend, () => {
      received.push('dead');
      return never();
    });
    const carried = carrier(client, { announcedBy: [subjects.auditWriterLeads], attemptMs: 60_000 });
    cleanup.push(() => carried.stop());
    const started = Date.now();
    const answers = [1, 2].map(() =>
      carried.request(subjects.auditAppend, { entries: [entry] }, { deadlineMs: 5000, again: { entries: [entry], retry: true } }),
    );
    while (received.length < 2) await new Promise((r) => setImmediate(r));
    await Promise.race([dead.unsubscribe(), new Promise((r) => setTimeout(r, 10))]);
    server.serve(subjects.auditAppend, ({ data }) => {
      received.push(`new retry=${data.retry === true}`);
      return appended;
    });
    await server.flush();
    server.publish(subjects.auditWriterLeads, { holder: 'standby' });
    expect(await Promise.all(answers)).toEqual([appended, appended]);
    expect(received).toEqual(['dead', 'dead', 'new retry=true', 'new retry=true']);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test('with copies, each re-send goes out that many times, so a stopped member of the queue group cannot take them all', async () => {
    const { client, server } = buses();
    const received: string[] = [];
    // Two stopped servers and one living one: the memory bus takes turns, so one copy of three reaches the living one.
    for (const name of ['stopped-1', 'stopped-2']) {
      server.serve(
        subjects.auditAppend,
        () => {
          received.push(name);
          return never();
        },
        { queue: 'writer' },
      );
    }
    server.serve(
      subjects.auditAppend,
      () => {
        received.push('living');
        return appended;
      },
      { queue: 'writer' },
    );
    const carried = carrier(client, { announcedBy: [subjects.auditWriterLeads], attemptMs: 60_000, copies: 3 });
    cleanup.push(() => carried.stop());
    const answer = carried.request(subjects.auditAppend, { entries: [entry] }, { deadlineMs: 5000 });
    while (received.length === 0) await new Promise((r) => setImmediate(r));
    server.publish(subjects.auditWriterLeads, { holder: 'standby' });
    expect(await answer).toEqual(appended);
    expect(received.sort()).toEqual(['living', 'stopped-1', 'stopped-1', 'stopped-2']);
  });
});
