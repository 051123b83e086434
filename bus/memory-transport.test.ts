import { describe, expect, it } from 'vitest';
import { createMemoryNetwork, createMemoryTransport } from './memory-transport.ts';
import type { BusStatus, Payload, RawMessage } from './types.ts';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (payload: Payload): string => (typeof payload === 'string' ? payload : new TextDecoder().decode(payload));
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('the memory transport', () => {
  it('delivers asynchronously, never inside the publish call', async () => {
    const t = createMemoryTransport();
    const got: string[] = [];
    t.subscribe('a.b', undefined, (msg) => got.push(text(msg.payload)));
    t.publish('a.b', bytes('one'), {});
    expect(got).toEqual([]);
    await tick();
    expect(got).toEqual(['one']);
    await t.drain();
  });

  it('copies payloads, so neither the sender nor another receiver can change what one received', async () => {
    const t = createMemoryTransport();
    const received: RawMessage[] = [];
    t.subscribe('a', undefined, (msg) => received.push(msg));
    t.subscribe('a', undefined, (msg) => received.push(msg));
    const payload = bytes('xyz');
    t.publish('a', payload, { h: '1' });
    payload[0] = 0;
    await tick();
    const [first, second] = received;
    (first!.payload as Uint8Array)[1] = 0;
    first!.headers.h = 'changed';
    expect(text(second!.payload)).toBe('xyz');
    expect(second!.headers.h).toBe('1');
    await t.drain();
  });

  it('hands text payloads over as they were sent, requests and replies alike (strings need no copy)', async () => {
    const t = createMemoryTransport();
    expect(t.payloads).toBe('text');
    t.subscribe('q', undefined, (msg, respond) => respond?.(`${msg.payload as string}!`));
    const reply = await t.request('q', '{"a":"é"}', {}, 1000);
    expect(reply.payload).toBe('{"a":"é"}!');
    await t.drain();
  });

  it('routes exact and wildcard subscriptions through one index', async () => {
    const t = createMemoryTransport();
    const got: string[] = [];
    for (const pattern of ['x.y', 'x.*', 'x.>', '*.y', '>', 'x.y.z']) {
      t.subscribe(pattern, undefined, () => got.push(pattern));
    }
    t.publish('x.y', bytes('{}'), {});
    await tick();
    expect(got.sort()).toEqual(['*.y', '>', 'x.*', 'x.>', 'x.y']);
    await t.drain();
  });

  it('takes turns among the members of a queue group, across patterns with the same queue name', async () => {
    const t = createMemoryTransport();
    const got: string[] = [];
    t.subscribe('jobs.run', 'workers', () => got.push('exact'));
    t.subscribe('jobs.*', 'workers', () => got.push('wild'));
    for (let i = 0; i < 4; i++) t.publish('jobs.run', bytes('{}'), {});
    await tick();
    expect(got).toEqual(['exact', 'wild', 'exact', 'wild']);
    await t.drain();
  });

  it('answers a request with the first reply only', async () => {
    const t = createMemoryTransport();
    t.subscribe('q', undefined, (_, respond) => respond?.(bytes('first')));
    t.subscribe('q', undefined, (_, respond) => respond?.(bytes('second')));
    const reply = await t.request('q', bytes(''), {}, 1000);
    expect(text(reply.payload)).toBe('first');
    await t.drain();
  });

  it('still delivers messages routed to a subscription before it was unsubscribed', async () => {
    const t = createMemoryTransport();
    const got: string[] = [];
    const sub = t.subscribe('a', undefined, (msg) => got.push(text(msg.payload)));
    t.publish('a', bytes('in flight'), {});
    await sub.unsubscribe();
    t.publish('a', bytes('after'), {});
    await tick();
    expect(got).toEqual(['in flight']);
    await t.drain();
  });

  it('closes one connection of a network while the others keep running', async () => {
    const network = createMemoryNetwork();
    const [a, b] = [network.connect(), network.connect()];
    const statuses: BusStatus[] = [];
    a.onStatus((s) => statuses.push(s));
    a.subscribe('svc', undefined, (_, respond) => respond?.(bytes('a')));
    await a.drain();
    expect(statuses).toEqual(['closed']);
    expect(a.isConnected()).toBe(false);
    await expect(a.request('svc', bytes(''), {}, 100)).rejects.toMatchObject({ code: 'BUS_CLOSED' });
    expect(() => a.publish('svc', bytes(''), {})).toThrow(expect.objectContaining({ code: 'BUS_CLOSED' }));
    await expect(b.request('svc', bytes(''), {}, 100)).rejects.toMatchObject({ code: 'BUS_NO_RESPONDERS' });
    await b.drain();
  });

  it('fails a pending request with BUS_CLOSED when its connection closes', async () => {
    const network = createMemoryNetwork();
    const [client, server] = [network.connect(), network.connect()];
    server.subscribe('never', undefined, () => {});
    const pending = client.request('never', bytes(''), {}, 10_000);
    await client.drain();
    await expect(pending).rejects.toMatchObject({ code: 'BUS_CLOSED' });
    await server.drain();
  });

  it('reports a raw handler that throws instead of breaking delivery to the others', async () => {
    const reported: unknown[] = [];
    const t = createMemoryTransport({ onError: (error) => reported.push(error) });
    const got: string[] = [];
    t.subscribe('a', undefined, () => {
      throw new Error('bug');
    });
    t.subscribe('a', undefined, () => got.push('ok'));
    t.publish('a', bytes(''), {});
    await tick();
    expect(got).toEqual(['ok']);
    expect(reported).toEqual([expect.objectContaining({ message: 'bug' })]);
    await t.drain();
  });
});
