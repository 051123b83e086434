import { describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { createBus, createMemoryNetwork, requestSubject, SuiteError } from '../../bus/index.ts';
import { replyOf } from './reply.ts';

const echo = requestSubject('test.errors.echo', Type.Object({ fail: Type.String() }), Type.Object({ ok: Type.Boolean() }));

/** An actor's handler on a real memory bus whose `onError` (what the runtime logs) is recorded. */
async function serving(work: (fail: string) => Promise<{ ok: boolean }>) {
  const reported: Array<{ error: unknown; stage: string }> = [];
  const bus = createBus(createMemoryNetwork().connect(), { onError: (error, { stage }) => reported.push({ error, stage }) });
  bus.serve(echo, ({ data }) => replyOf(() => work(data.fail)));
  return { bus, reported };
}

describe('replyOf', () => {
  it('answers INTERNAL_ERROR for a failure of ours without its text, and hands its cause to the bus to be logged', async () => {
    const { bus, reported } = await serving(async () => {
      throw new Error('invalid byte sequence for encoding "UTF8": 0x00');
    });
    const answer = await bus.request(echo, { fail: 'x' });
    expect(answer).toMatchObject({ ok: false, error: { code: 'INTERNAL_ERROR' } });
    expect(JSON.stringify(answer)).not.toContain('UTF8');
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatchObject({ stage: 'handler', error: { message: 'invalid byte sequence for encoding "UTF8": 0x00' } });
    await bus.drain();
  });

  it('answers a catalogue error as data and reports nothing: it is an answer, not a failure', async () => {
    const { bus, reported } = await serving(async () => {
      throw new SuiteError('NOT_FOUND', 'no such thing');
    });
    expect(await bus.request(echo, { fail: 'x' })).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: 'no such thing' } });
    expect(reported).toEqual([]);
    await bus.drain();
  });

  it('hands a failure to onUnexpected instead, when one is given', async () => {
    const seen: unknown[] = [];
    const result = await replyOf(
      async () => {
        throw new TypeError('boom');
      },
      (err) => seen.push(err),
    );
    expect(result).toEqual({ ok: false, error: { code: 'INTERNAL_ERROR', message: 'internal error' } });
    expect(seen).toHaveLength(1);
  });
});

describe('storage outages on the bus', () => {
  /** A real driver error: a pool on a socket folder that does not exist (no server there). */
  async function refusedQuery(): Promise<unknown> {
    const { createPool, sql } = await import('slonik');
    // slonik connects as it makes the pool: the refusal comes from there, or from the first query.
    return createPool('postgres://suite@%2Ftmp%2Fsuite-no-such-socket-dir:5432/postgres', { connectionTimeout: 2_000 })
      .then(async (gone) => {
        try {
          await gone.query(sql.unsafe`SELECT 1`);
        } finally {
          await gone.end();
        }
      })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
  }

  it('a handler whose storage refused the connection answers 503 SERVICE_UNAVAILABLE, through replyOf and through a bus given classifyError, never INTERNAL_ERROR', async () => {
    const refused = await refusedQuery();
    const { unavailableData } = await import('./reply.ts');
    const reported: string[] = [];
    const bus = createBus(createMemoryNetwork().connect(), { classifyError: unavailableData, onError: (_e, { stage }) => reported.push(stage) });
    const thrown = requestSubject('test.errors.thrown', Type.Object({}), Type.Object({ ok: Type.Boolean() }));
    bus.serve(echo, () => replyOf(() => Promise.reject(refused)));
    bus.serve(thrown, () => Promise.reject(refused));
    for (const answer of [await bus.request(echo, { fail: 'x' }), await bus.request(thrown, {})]) {
      expect(answer).toMatchObject({ ok: false, error: { code: 'SERVICE_UNAVAILABLE' } });
      expect(JSON.stringify(answer)).toContain('nothing was done');
    }
    expect(reported).toEqual(['unavailable']);
    await bus.drain();
  });

  it('a request sent but not answered in time says its outcome is unknown; one no actor received says nothing of the kind', async () => {
    const bus = createBus(createMemoryNetwork().connect());
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    bus.serve(echo, async () => {
      await held;
      return { ok: true, value: { ok: true } };
    });
    const late = await bus.request(echo, { fail: 'x' }, { timeoutMs: 50 });
    expect(late).toMatchObject({
      ok: false,
      error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringContaining('the outcome is unknown: it may have been carried out') },
      transport: 'BUS_TIMEOUT',
    });
    const nobody = requestSubject('test.errors.nobody', Type.Object({}), Type.Object({}));
    const unserved = await bus.request(nobody, {});
    expect(unserved).toMatchObject({ ok: false, error: { code: 'SERVICE_UNAVAILABLE' }, transport: 'BUS_NO_RESPONDERS' });
    expect(JSON.stringify(unserved)).not.toContain('outcome is unknown');
    release();
    await bus.drain();
  });
});
