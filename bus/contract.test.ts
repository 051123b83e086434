import { afterEach, describe, expect, it } from 'vitest';
import { SuiteError } from './errors.ts';
import {
  TRACEPARENT,
  busPool,
  bytes,
  countdown,
  deferred,
  memoryHarness,
  natsHarness,
  parse,
  storePropagation,
  subjectsFor,
  uniquePrefix,
  within,
  type Harness,
} from '../testing/bus.ts';

// One contract, two transports: the embedded default must behave as NATS does.
describe.each([
  { name: 'memory', harness: memoryHarness() },
  { name: 'nats', harness: natsHarness() },
])('the bus over the $name transport', ({ name, harness }: { name: string; harness: Harness }) => {
  const pool = busPool(harness);
  afterEach(() => pool.drainAll());

  it('answers a request with the reply of its handler', async () => {
    const { echo } = subjectsFor(uniquePrefix());
    const { bus } = await pool.open();
    bus.serve(echo, ({ data }) => ({ ok: true, value: { text: data.text.toUpperCase() } }));
    await bus.flush();
    expect(await bus.request(echo, { text: 'hi' })).toEqual({ ok: true, value: { text: 'HI' } });
  });

  it('hands the transport each message in the form it declares: JSON text in the process, UTF-8 bytes on a network', async () => {
    const { echo, happened } = subjectsFor(uniquePrefix());
    const [server, raw] = [await pool.open(), await pool.open()];
    const form = server.transport.payloads === 'text' ? 'string' : 'object';
    expect(server.transport.payloads).toBe(name === 'memory' ? 'text' : 'bytes');
    const seen: unknown[] = [];
    const got = countdown(1);
    raw.transport.subscribe(happened.subject, undefined, (msg) => {
      seen.push(typeof msg.payload, parse(msg.payload));
      got.hit();
    });
    server.bus.serve(echo, ({ data }) => ({ ok: true, value: data }));
    await Promise.all([server.bus.flush(), raw.bus.flush()]);
    server.bus.publish(happened, { id: 1 });
    await within(got.done, 2000, 'the raw subscriber');
    expect(seen).toEqual([form, { id: 1 }]);
    const reply = await raw.transport.request(echo.subject, raw.transport.payloads === 'text' ? '{"text":"é"}' : bytes('{"text":"é"}'), {}, 2000);
    expect(typeof reply.payload).toBe(form);
    expect(parse(reply.payload)).toEqual({ ok: true, value: { text: 'é' } });
  });

  it('carries an error answered by the handler as data', async () => {
    const { echo } = subjectsFor(uniquePrefix());
    const [server, client] = [await pool.open(), await pool.open()];
    server.bus.serve(echo, () => ({ ok: false, error: { code: 'NOT_FOUND', message: 'no such echo' } }));
    await server.bus.flush();
    expect(await client.bus.request(echo, { text: 'x' })).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: 'no such echo' } });
  });

  it('fails with BUS_TIMEOUT when the reply comes too late', async () => {
    const { echo } = subjectsFor(uniquePrefix());
    const { bus } = await pool.open();
    const gate = deferred();
    bus.serve(echo, async ({ data }) => {
      await gate.promise;
      return { ok: true, value: data };
    });
    await bus.flush();
    const result = await bus.request(echo, { text: 'slow' }, { timeoutMs: 100 });
    gate.resolve();
    expect(result).toMatchObject({ ok: false, error: { code: 'SERVICE_UNAVAILABLE' }, transport: 'BUS_TIMEOUT' });
  });

  it('fails at once with BUS_NO_RESPONDERS when nobody serves the subject', async () => {
    const { echo } = subjectsFor(uniquePrefix());
    const { bus } = await pool.open();
    const started = performance.now();
    const result = await bus.request(echo, { text: 'anyone?' }, { timeoutMs: 5000 });
    expect(result).toMatchObject({ ok: false, error: { code: 'SERVICE_UNAVAILABLE' }, transport: 'BUS_NO_RESPONDERS' });
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('delivers a published event to every subscriber', async () => {
    const { happened } = subjectsFor(uniquePrefix());
    const [a, b] = [await pool.open(), await pool.open()];
    const seen = countdown(2);
    const got: unknown[] = [];
    for (const { bus } of [a, b])
      bus.subscribe(happened, ({ data, subject }) => {
        got.push({ data, subject });
        seen.hit();
      });
    await Promise.all([a.bus.flush(), b.bus.flush()]);
    a.bus.publish(happened, { id: 7 });
    await within(seen.done, 2000, 'both subscribers');
    expect(got).toEqual([
      { data: { id: 7 }, subject: happened.subject },
      { data: { id: 7 }, subject: happened.subject },
    ]);
  });

  it('matches * to exactly one token and > to one or more trailing tokens', async () => {
    const { happened } = subjectsFor(uniquePrefix());
    const { bus } = await pool.open();
    const one: string[] = [];
    const rest: string[] = [];
    const lastOne = deferred();
    const lastRest = deferred();
    const record =
      (into: string[], last: { resolve(): void }) =>
      ({ subject }: { subject: string }) => {
        into.push(subject);
        if (subject.endsWith('.end')) last.resolve();
      };
    bus.subscribe(happened, record(one, lastOne), { pattern: `${happened.subject}.*` });
    bus.subscribe(happened, record(rest, lastRest), { pattern: `${happened.subject}.>` });
    await bus.flush();
    // Order from one publisher is kept per subscription, so '.end' arriving proves what did not.
    for (const suffix of [undefined, 'a.b', 'a', 'end']) bus.publish(happened, { id: 1 }, suffix === undefined ? {} : { suffix });
    await within(Promise.all([lastOne.promise, lastRest.promise]), 2000, 'the last event');
    const s = happened.subject;
    expect(one).toEqual([`${s}.a`, `${s}.end`]);
    expect(rest).toEqual([`${s}.a.b`, `${s}.a`, `${s}.end`]);
  });

  it('shares requests among the members of a queue group, each handled exactly once', async () => {
    const { echo } = subjectsFor(uniquePrefix());
    const members = [await pool.open(), await pool.open()];
    const client = await pool.open();
    const handled = new Map<string, string[]>();
    members.forEach(({ bus }, i) => {
      bus.serve(
        echo,
        ({ data }) => {
          handled.set(data.text, [...(handled.get(data.text) ?? []), `m${i}`]);
          return { ok: true, value: { text: data.text, by: `m${i}` } };
        },
        { queue: 'workers' },
      );
    });
    await Promise.all(members.map(({ bus }) => bus.flush()));
    const texts = Array.from({ length: 40 }, (_, i) => `msg${i}`);
    const results = await Promise.all(texts.map((text) => client.bus.request(echo, { text })));
    expect(results.every((r) => r.ok)).toBe(true);
    expect([...handled.keys()].sort()).toEqual([...texts].sort());
    expect([...handled.values()].every((by) => by.length === 1)).toBe(true);
    const perMember = [...handled.values()].flat();
    expect(perMember.filter((m) => m === 'm0').length).toBeGreaterThan(0);
    expect(perMember.filter((m) => m === 'm1').length).toBeGreaterThan(0);
  });

  it('gives every event to a plain subscriber and each to one member of a queue group', async () => {
    const { happened } = subjectsFor(uniquePrefix());
    const [plain, q1, q2] = [await pool.open(), await pool.open(), await pool.open()];
    const n = 30;
    const plainSeen: number[] = [];
    const queueSeen: Array<[number, string]> = [];
    const allPlain = countdown(n);
    const allQueue = countdown(n);
    plain.bus.subscribe(happened, ({ data }) => {
      plainSeen.push(data.id);
      allPlain.hit();
    });
    for (const [name, { bus }] of [
      ['q1', q1],
      ['q2', q2],
    ] as const) {
      bus.subscribe(
        happened,
        ({ data }) => {
          queueSeen.push([data.id, name]);
          allQueue.hit();
        },
        { queue: 'group' },
      );
    }
    await Promise.all([plain, q1, q2].map(({ bus }) => bus.flush()));
    for (let id = 0; id < n; id++) plain.bus.publish(happened, { id });
    await within(Promise.all([allPlain.done, allQueue.done]), 3000, 'all events');
    expect(plainSeen).toEqual(Array.from({ length: n }, (_, i) => i));
    expect(new Set(queueSeen.map(([id]) => id)).size).toBe(n);
    expect(queueSeen.some(([, m]) => m === 'q1') && queueSeen.some(([, m]) => m === 'q2')).toBe(true);
  });

  it('carries headers both ways, traceparent included', async () => {
    const { echo, happened } = subjectsFor(uniquePrefix());
    const [server, client] = [await pool.open(), await pool.open()];
    server.bus.serve(echo, ({ data, headers }) => ({ ok: true, value: { text: data.text, headers } }));
    const event = deferred<Record<string, string>>();
    server.bus.subscribe(happened, ({ headers }) => event.resolve(headers));
    await server.bus.flush();
    const headers = { traceparent: TRACEPARENT, 'suite-request-id': 'req-1' };
    const reply = await client.bus.request(echo, { text: 'h' }, { headers });
    expect(reply.ok && reply.value.headers).toMatchObject(headers);
    client.bus.publish(happened, { id: 1 }, { headers });
    expect(await within(event.promise, 2000, 'the event')).toMatchObject(headers);
  });

  it('injects the current trace context and runs the handler inside it', async () => {
    const { echo } = subjectsFor(uniquePrefix());
    const { store, propagation } = storePropagation();
    const [server, client] = [await pool.open({ propagation }), await pool.open({ propagation })];
    server.bus.serve(echo, () => ({ ok: true, value: { text: store.getStore() ?? 'none' } }));
    await server.bus.flush();
    const injected = await store.run(TRACEPARENT, () => client.bus.request(echo, { text: '' }));
    expect(injected).toEqual({ ok: true, value: { text: TRACEPARENT } });
    // A traceparent the caller set explicitly (an edge relaying one) wins over the current context.
    const relayed = '00-11111111111111111111111111111111-2222222222222222-01';
    const kept = await store.run(TRACEPARENT, () => client.bus.request(echo, { text: '' }, { headers: { traceparent: relayed } }));
    expect(kept).toEqual({ ok: true, value: { text: relayed } });
  });

  it('refuses an invalid request naming the field: before sending it on a network, on receipt only in the process', async () => {
    const { echo } = subjectsFor(uniquePrefix());
    const refused: string[] = [];
    const server = await pool.open({ onError: (_, { stage }) => refused.push(stage) });
    const client = await pool.open();
    let calls = 0;
    server.bus.serve(echo, ({ data }) => {
      calls++;
      return { ok: true, value: data };
    });
    await server.bus.flush();
    const wrongType = await client.bus.request(echo, { text: 5 } as never);
    expect(wrongType).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST', message: expect.stringContaining('/text') } });
    const missing = await client.bus.request(echo, {} as never);
    expect(missing).toMatchObject({ ok: false, error: { message: expect.stringContaining('/text is required') } });
    expect(calls).toBe(0);
    // In the process the serving side's check is the only one (issue 28): it saw and refused both.
    expect(refused).toEqual(name === 'memory' ? ['invalid-request', 'invalid-request'] : []);
  });

  it('refuses a malformed request on the receiving side without calling the handler', async () => {
    const { echo } = subjectsFor(uniquePrefix());
    const refused: string[] = [];
    const server = await pool.open({ onError: (_, { stage }) => refused.push(stage) });
    const raw = await pool.open();
    let calls = 0;
    server.bus.serve(echo, ({ data }) => {
      calls++;
      return { ok: true, value: data };
    });
    await server.bus.flush();
    for (const payload of ['{"text":5,"n":-1}', 'not json']) {
      const reply = await raw.transport.request(echo.subject, bytes(payload), {}, 2000);
      expect(parse(reply.payload)).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    }
    const first = await raw.transport.request(echo.subject, bytes('{"text":5,"n":-1}'), {}, 2000);
    expect(parse(first.payload)).toMatchObject({ error: { message: expect.stringMatching(/\/text.*\/n|\/n.*\/text/) } });
    expect(calls).toBe(0);
    expect(refused).toContain('invalid-request');
  });

  it('refuses a request carrying a NUL, a lone surrogate or a __proto__ key, on sending and on receiving, before any handler', async () => {
    const { echo } = subjectsFor(uniquePrefix());
    const server = await pool.open();
    const raw = await pool.open();
    let calls = 0;
    server.bus.serve(echo, ({ data }) => {
      calls++;
      return { ok: true, value: data };
    });
    await server.bus.flush();
    expect(await server.bus.request(echo, { text: 'a\u0000b' })).toEqual({
      ok: false,
      error: { code: 'INVALID_REQUEST', message: `${echo.subject}: /text must not contain NUL (U+0000)` },
    });
    // A peer that skips the bus's own checks (a foreign NATS client): the receiving side refuses.
    const hostile: Array<[string, string]> = [
      ['{"text":"a\\u0000b"}', 'NUL'],
      ['{"text":"\\ud800"}', 'lone surrogate'],
      ['{"text":"a","__proto__":{}}', '__proto__'],
    ];
    for (const [payload, words] of hostile) {
      const reply = await raw.transport.request(echo.subject, raw.transport.payloads === 'text' ? payload : bytes(payload), {}, 2000);
      expect(parse(reply.payload)).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST', message: expect.stringContaining(words) } });
    }
    expect(calls).toBe(0);
  });

  it('answers INTERNAL_ERROR when a reply breaks its schema, on either side', async () => {
    const { echo } = subjectsFor(uniquePrefix());
    const serverStages: string[] = [];
    const clientStages: string[] = [];
    const [server, rawServer, client] = [
      await pool.open({ onError: (_, { stage }) => serverStages.push(stage) }),
      await pool.open(),
      await pool.open({ onError: (_, { stage }) => clientStages.push(stage) }),
    ];
    server.bus.serve(echo, () => ({ ok: true, value: { wrong: 1 } as never }));
    await server.bus.flush();
    expect(await client.bus.request(echo, { text: 'a' })).toMatchObject({ ok: false, error: { code: 'INTERNAL_ERROR' } });
    // On a network both sides check the reply, and the serving side, finding it wrong, sends
    // INTERNAL_ERROR instead; in the process only the requesting side checks it (issue 28).
    expect([serverStages, clientStages]).toEqual(name === 'memory' ? [[], ['invalid-reply']] : [['invalid-reply'], []]);
    // A responder that skips the bus: the requesting side must check the envelope itself.
    const other = subjectsFor(uniquePrefix()).echo;
    rawServer.transport.subscribe(other.subject, undefined, (_, respond) => respond?.(bytes('{"ok":true,"value":{"nope":1}}')));
    await rawServer.transport.flush();
    expect(await client.bus.request(other, { text: 'a' })).toMatchObject({ ok: false, error: { code: 'INTERNAL_ERROR' } });
  });

  it('refuses an invalid event on publish and drops a malformed one on receipt', async () => {
    const { happened } = subjectsFor(uniquePrefix());
    const dropped = deferred<string>();
    const subscriber = await pool.open({ onError: (_, { stage }) => dropped.resolve(stage) });
    const publisher = await pool.open();
    const got: number[] = [];
    const good = deferred();
    subscriber.bus.subscribe(happened, ({ data }) => {
      got.push(data.id);
      good.resolve();
    });
    await subscriber.bus.flush();
    expect(() => publisher.bus.publish(happened, { id: 'x' } as never)).toThrow(SuiteError);
    expect(() => publisher.bus.publish(happened, { id: 'x' } as never)).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST' }));
    publisher.transport.publish(happened.subject, bytes('{"id":"x"}'), {});
    publisher.bus.publish(happened, { id: 2 });
    expect(await within(dropped.promise, 2000, 'the drop report')).toBe('invalid-event');
    await within(good.promise, 2000, 'the valid event');
    expect(got).toEqual([2]);
  });

  it('answers INTERNAL_ERROR without leaking what the handler threw', async () => {
    const { echo } = subjectsFor(uniquePrefix());
    const reported: unknown[] = [];
    const server = await pool.open({ onError: (error) => reported.push(error) });
    const client = await pool.open();
    server.bus.serve(echo, () => {
      throw new Error('password=hunter2 at /srv/secret.sql');
    });
    await server.bus.flush();
    const result = await client.bus.request(echo, { text: 'boom' });
    expect(result).toMatchObject({ ok: false, error: { code: 'INTERNAL_ERROR' } });
    expect(JSON.stringify(result)).not.toMatch(/hunter2|secret/);
    expect(reported).toEqual([expect.objectContaining({ message: expect.stringContaining('hunter2') })]);
  });

  it('drains after the in-flight handler finished, then fails requests with BUS_CLOSED', async () => {
    const { echo } = subjectsFor(uniquePrefix());
    const [server, client] = [await pool.open(), await pool.open()];
    const started = deferred();
    const release = deferred();
    server.bus.serve(echo, async ({ data }) => {
      started.resolve();
      await release.promise;
      return { ok: true, value: data };
    });
    await server.bus.flush();
    const pending = client.bus.request(echo, { text: 'last one' });
    await within(started.promise, 2000, 'the handler to start');
    let drained = false;
    const draining = server.bus.drain().then(() => (drained = true));
    // A negative can only be observed over time: give the drain a chance to finish too early.
    await new Promise((r) => setTimeout(r, 50));
    expect(drained).toBe(false);
    release.resolve();
    expect(await pending).toEqual({ ok: true, value: { text: 'last one' } });
    await within(draining, 3000, 'the drain');
    await within(server.bus.closed(), 1000, 'closed()');
    expect(server.bus.isConnected()).toBe(false);
    expect(await server.bus.request(echo, { text: 'x' })).toMatchObject({ ok: false, transport: 'BUS_CLOSED' });
    expect(await client.bus.request(echo, { text: 'x' })).toMatchObject({ ok: false, transport: 'BUS_NO_RESPONDERS' });
  });
});
