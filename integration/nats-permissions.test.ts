import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, errors, type NatsConnection } from '@nats-io/transport-node';
import { connectNatsTransport, createBus, subjects, type Bus } from '../bus/index.ts';
import { NatsNode } from '../compose/nats-node.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * docs/EVENTS.md, "Authorization", with the documented configuration itself (compose/nats-auth.conf)
 * on a real nats-server of the test's own: the suite's user serves and publishes; the events user
 * receives the public events and can neither publish (no forged revocation or append reaches the
 * suite) nor subscribe to an internal subject.
 */

// A letter first: nats-server parses a $VARIABLE's value as configuration, and one beginning with a
// digit does not parse (compose/nats-auth.conf).
const suitePassword = `p${randomBytes(12).toString('hex')}`;
const eventsPassword = `p${randomBytes(12).toString('hex')}`;
let server: NatsNode;
let suiteBus: Bus;
let events: NatsConnection;
const violations: Error[] = [];

beforeAll(async () => {
  server = new NatsNode({
    name: 'nats-auth',
    storeDir: await mkdtemp(join(tmpdir(), 'nats-auth-')),
    config: readFileSync(new URL('../compose/nats-auth.conf', import.meta.url), 'utf8'),
    env: { PATH: process.env.PATH ?? '', SUITE_NATS_PASSWORD: suitePassword, EVENTS_NATS_PASSWORD: eventsPassword },
  });
  await server.start();
  suiteBus = createBus(await connectNatsTransport({ servers: server.url, name: 'suite', user: 'suite', pass: suitePassword }));
  events = await connect({ servers: server.url, name: 'events-consumer', user: 'events', pass: eventsPassword });
  void (async () => {
    for await (const s of events.status()) if (s.type === 'error') violations.push(s.error);
  })();
}, machineTimeout(30_000));

afterAll(async () => {
  await events?.close();
  await suiteBus?.drain();
  await server?.stop();
  if (server) await rm(server.o.storeDir, { recursive: true, force: true });
});

const appended = { id: `exec_${'a'.repeat(32)}`, seq: 7, hash: 'b'.repeat(64), subject: 'agent-1', outcome: 'success' };

describe('NATS authorization of a distributed suite (compose/nats-auth.conf)', () => {
  it('refuses a wrong password for the events user', async () => {
    await expect(connect({ servers: server.url, user: 'events', pass: 'wrong', reconnect: false })).rejects.toThrow(/Authorization/i);
  });

  it('lets the events user receive a public event the suite publishes', async () => {
    const sub = events.subscribe(subjects.executionsAppended.subject, { max: 1 });
    await events.flush();
    suiteBus.publish(subjects.executionsAppended, appended);
    for await (const m of sub) {
      expect(m.json()).toEqual(appended);
    }
  });

  it('refuses a publish by the events user on a revocation or an append subject, and the suite never sees it', async () => {
    const seen: unknown[] = [];
    const watching = [subjects.revocationRevoked, subjects.executionsAppended].map((s) =>
      suiteBus.subscribe(s, (e) => {
        seen.push(e.data);
      }),
    );
    const served: unknown[] = [];
    const serving = suiteBus.serve(subjects.revocationRevoke, async (req) => {
      served.push(req);
      return { ok: true, value: { revoked: true, jti: 'x', version: 1 } };
    });
    await suiteBus.flush();
    violations.length = 0;
    events.publish(subjects.revocationRevoked.subject, JSON.stringify({ version: 99, jti: 'forged', exp: 2_000_000_000 }));
    events.publish(subjects.executionsAppended.subject, JSON.stringify({ ...appended, seq: 8 }));
    events.publish(subjects.revocationRevoke.subject, JSON.stringify({ jti: 'forged', exp: 2_000_000_000, by: 'attacker' }));
    events.publish(subjects.executionsRecord.subject, JSON.stringify({}));
    await events.flush();
    // A message the suite user publishes after them arrives after them if they were delivered at all.
    suiteBus.publish(subjects.executionsAppended, { ...appended, seq: 9 });
    await expect.poll(() => seen.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    await suiteBus.flush();
    expect(seen).toEqual([{ ...appended, seq: 9 }]);
    expect(served).toEqual([]);
    await expect.poll(() => violations.length, { timeout: 10_000 }).toBe(4);
    expect(violations.every((v) => v instanceof errors.PermissionViolationError && v.operation === 'publish')).toBe(true);
    for (const w of watching) await w.unsubscribe();
    await serving.unsubscribe();
  });

  it('refuses the events user a subscription to an internal subject', async () => {
    const sub = events.subscribe(subjects.executionsRecord.subject);
    const closed = await sub.closed;
    expect(closed).toBeInstanceOf(errors.PermissionViolationError);
    expect((closed as InstanceType<typeof errors.PermissionViolationError>).operation).toBe('subscription');
  });
});
