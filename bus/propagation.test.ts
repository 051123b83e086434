import { afterEach, describe, expect, it } from 'vitest';
import type { MessageKind, TracePropagation } from './bus.ts';
import { TRACEPARENT, busPool, deferred, memoryHarness, natsHarness, subjectsFor, uniquePrefix, within, type Harness } from '../testing/bus.ts';
import type { Headers, Result } from './types.ts';

/**
 * What the bus tells its trace propagation, on both transports: the declared subject and the kind
 * of every message, when each outgoing one ended and how, and the headers each handler received.
 * (Tracing builds its client/server and producer/consumer spans on exactly this.)
 */
function recordingPropagation() {
  const seen: string[] = [];
  const ended: Array<{ subject: string; result: Result<unknown> }> = [];
  const propagation: TracePropagation = {
    inject(headers: Headers, subject: string, kind: MessageKind) {
      seen.push(`inject ${kind} ${subject}`);
      headers.traceparent = TRACEPARENT;
      return (result) => void ended.push({ subject, result });
    },
    extract<T>(headers: Headers, fn: () => T, subject: string, kind: MessageKind): T {
      seen.push(`extract ${kind} ${subject} ${headers.traceparent ?? 'none'}`);
      return fn();
    },
  };
  return { seen, ended, propagation };
}

describe.each([
  { name: 'memory', harness: memoryHarness() },
  { name: 'nats', harness: natsHarness() },
])('trace propagation over the $name transport', ({ harness }: { harness: Harness }) => {
  const pool = busPool(harness);
  afterEach(() => pool.drainAll());

  it('names the declared subject and kind of each message, and ends each request with its result', async () => {
    const { echo, happened } = subjectsFor(uniquePrefix());
    const { seen, ended, propagation } = recordingPropagation();
    const [server, client] = [await pool.open({ propagation }), await pool.open({ propagation })];
    server.bus.serve(echo, ({ data }) => (data.text === 'no' ? { ok: false, error: { code: 'NOT_FOUND', message: 'none' } } : { ok: true, value: data }));
    const event = deferred<string>();
    server.bus.subscribe(happened, ({ subject }) => event.resolve(subject), { pattern: `${happened.subject}.>` });
    await server.bus.flush();
    await client.bus.request(echo, { text: 'yes' });
    await client.bus.request(echo, { text: 'no' });
    client.bus.publish(happened, { id: 1 }, { suffix: 'x' });
    expect(await within(event.promise, 2000, 'the event')).toBe(`${happened.subject}.x`);
    expect(seen).toEqual([
      `inject request ${echo.subject}`,
      `extract request ${echo.subject} ${TRACEPARENT}`,
      `inject request ${echo.subject}`,
      `extract request ${echo.subject} ${TRACEPARENT}`,
      // The declared subject, not the suffixed one on the wire: span names stay few.
      `inject event ${happened.subject}`,
      `extract event ${happened.subject} ${TRACEPARENT}`,
    ]);
    expect(ended).toEqual([
      { subject: echo.subject, result: { ok: true, value: { text: 'yes' } } },
      { subject: echo.subject, result: { ok: false, error: { code: 'NOT_FOUND', message: 'none' } } },
      { subject: happened.subject, result: { ok: true, value: undefined } },
    ]);
  });

  it('ends a request that found no responder with its transport failure', async () => {
    const { echo } = subjectsFor(uniquePrefix());
    const { ended, propagation } = recordingPropagation();
    const { bus } = await pool.open({ propagation });
    await bus.request(echo, { text: 'anyone?' });
    expect(ended).toEqual([{ subject: echo.subject, result: expect.objectContaining({ ok: false, transport: 'BUS_NO_RESPONDERS' }) }]);
  });

  it('leaves a traceparent the caller set alone, and delivers it to the handler', async () => {
    const { echo } = subjectsFor(uniquePrefix());
    const { seen, ended, propagation } = recordingPropagation();
    const [server, client] = [await pool.open({ propagation }), await pool.open({ propagation })];
    server.bus.serve(echo, ({ data }) => ({ ok: true, value: data }));
    await server.bus.flush();
    const relayed = '00-11111111111111111111111111111111-2222222222222222-01';
    await client.bus.request(echo, { text: 'r' }, { headers: { traceparent: relayed } });
    expect(seen).toEqual([`extract request ${echo.subject} ${relayed}`]);
    expect(ended).toEqual([]);
  });
});
