import { sql, type DatabasePool } from 'slonik';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../testing/suite.ts';
import { rowSchema } from '../storage/row-schema.ts';
import { createTestDatabase, type TestDatabase } from '../testing/storage.ts';
import { expectSuiteWorks } from '../testing/suite-works.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * One failing statement must never leave the storage unusable. On PGlite it did: the database is
 * one session behind a loopback socket, slonik drops its connection after any failed query, and the
 * next connection's client prepared the chain writers' named statements again, which failed with
 * "prepared statement already exists" from then on: every append, so every issue and revocation,
 * for good (storage/pglite-server.ts, freshSession). Each kind of failure is sent straight to the
 * storage of a running suite, then the suite must still issue, validate, append, verify and revoke.
 */
const NoRows = rowSchema(Type.Object({}));

const failures: Array<{ name: string; postgresOnly?: boolean; run(pool: DatabasePool): Promise<unknown> }> = [
  { name: 'an invalid byte sequence (a NUL in a text parameter)', run: (pool) => pool.query(sql.unsafe`select ${'a\u0000b'}::text`) },
  { name: 'a constraint violation', run: (pool) => pool.query(sql.unsafe`insert into chain_heads (chain, seq, hash, epoch) values ('audit', 0, 'x', 0)`) },
  { name: 'a syntax error', run: (pool) => pool.query(sql.unsafe`selec 1`) },
  {
    name: 'a failure inside a transaction',
    run: (pool) =>
      pool.transaction(async (tx) => {
        await tx.query(sql.unsafe`select pg_advisory_xact_lock(42)`);
        await tx.query(sql.unsafe`select 1 / 0`);
      }),
  },
  { name: 'a failing named prepared statement', run: (pool) => pool.query(sql.prepared('recovery_probe', NoRows)`select ${'\u0000'}::text`) },
  {
    // PGlite cannot interrupt a running statement (no timer signals in WebAssembly), so there is no
    // statement timeout to fail there.
    name: 'a statement timeout',
    postgresOnly: true,
    run: (pool) =>
      pool.transaction(async (tx) => {
        await tx.query(sql.unsafe`set local statement_timeout = 50`);
        await tx.query(sql.unsafe`select pg_sleep(1)`);
      }),
  },
];

describe.each([{ kind: 'pglite' as const }, { kind: 'postgres' as const }])('after a failing statement on $kind', ({ kind }) => {
  let t: TestSuite;
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    db = kind === 'postgres' ? await createTestDatabase() : undefined;
    t = await startTestSuite(db ? { SUITE_DATABASE_URL: db.url } : {});
    // Once, first: the chain writers' statements are then prepared on the session, as in a
    // running suite (the wedge needed them prepared before the failure).
    await expectSuiteWorks(t, 'before any failure');
  }, machineTimeout(60_000));
  afterAll(async () => {
    await t?.stop();
    await db?.drop();
  });

  for (const failure of failures.filter((f) => kind === 'postgres' || f.postgresOnly !== true)) {
    it(`the suite still issues, validates, appends, verifies and revokes after ${failure.name}`, async () => {
      const pool = t.suite.storage?.pool;
      if (pool === undefined) throw new Error('the test suite has no storage');
      await expect(failure.run(pool)).rejects.toThrow();
      await expectSuiteWorks(t, failure.name);
    });
  }

  it('still works after every kind of failure at once, concurrently with the work', async () => {
    const pool = t.suite.storage?.pool;
    if (pool === undefined) throw new Error('the test suite has no storage');
    const applicable = failures.filter((f) => kind === 'postgres' || f.postgresOnly !== true);
    const failing = Promise.allSettled(applicable.map((f) => f.run(pool)));
    await expectSuiteWorks(t, 'concurrent failures');
    expect((await failing).every((r) => r.status === 'rejected')).toBe(true);
  });
});
