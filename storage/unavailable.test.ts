import { readFile } from 'node:fs/promises';
import { createPool, sql, type DatabasePool } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/storage.ts';
import { storageOutage } from './unavailable.ts';

/**
 * Which storage failures are outages (503, retry later) and which are ours (500), told apart on the
 * errors a real driver raises: a server that is not there, a session the server ends under a
 * statement, and ordinary statement errors on a live one.
 */
const failureOf = (work: Promise<unknown>) =>
  work.then(
    () => undefined,
    (err: unknown) => err,
  );

let db: TestDatabase;
let pool: DatabasePool;
beforeAll(async () => {
  db = await createTestDatabase();
  pool = await createPool(db.url, { maxPoolSize: 4 });
  // The ended session's connection reports its end on the pool too (the suite's pool logs it).
  pool.on('error', () => undefined);
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

describe('storage outages', () => {
  it('a server that is not there (no socket) is an outage in which nothing was done', async () => {
    // slonik connects as it makes the pool: the refusal comes from there, or from the first query.
    const error = await failureOf(
      createPool('postgres://suite@%2Ftmp%2Fsuite-no-such-socket-dir:5432/postgres', { connectionTimeout: 2_000 }).then(async (gone) => {
        try {
          await gone.query(sql.unsafe`SELECT 1`);
        } finally {
          await gone.end();
        }
      }),
    );
    expect(error).toBeInstanceOf(Error);
    expect(storageOutage(error)).toEqual({ outcomeUnknown: false });
  });

  it('a statement whose session the server ends under it is an outage whose outcome is unknown', async () => {
    const running = pool.connect(async (c) => {
      await c.query(sql.unsafe`SELECT set_config('application_name', 'suite-outage-probe', false)`);
      return c.query(sql.unsafe`SELECT pg_sleep(30)`);
    });
    // The probe's backend, once its sleep is under way.
    let pid: number | null = null;
    for (let i = 0; i < 500 && pid === null; i++) {
      pid = (await pool.maybeOneFirst(
        sql.unsafe`SELECT pid FROM pg_stat_activity WHERE application_name = 'suite-outage-probe' AND query LIKE '%pg_sleep%'`,
      )) as number | null;
      if (pid === null) await new Promise((r) => setTimeout(r, 20));
    }
    expect(pid).not.toBeNull();
    await pool.query(sql.unsafe`SELECT pg_terminate_backend(${pid as number})`);
    const error = await failureOf(running);
    expect(storageOutage(error)).toEqual({ outcomeUnknown: true });
  });

  it('statement errors on a live server are not outages: they stay 500s, with their cause logged', async () => {
    const errors = [
      await failureOf(pool.query(sql.unsafe`selec 1`)),
      await failureOf(pool.query(sql.unsafe`SELECT 1 / 0`)),
      await failureOf(pool.query(sql.unsafe`SELECT ${'a\u0000b'}::text`)),
      await failureOf(readFile('/nonexistent/suite-file')),
    ];
    for (const error of errors) expect(error).toBeInstanceOf(Error);
    expect(errors.map(storageOutage)).toEqual([undefined, undefined, undefined, undefined]);
  });
});
