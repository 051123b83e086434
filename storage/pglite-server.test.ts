import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { startPgliteServer, type PgliteServer } from './pglite-server.ts';

/**
 * PGlite is one backend session for the life of the process; each client connection must still
 * start on a fresh session, as a new connection to Postgres does (pglite-server.ts, freshSession).
 * A client that leaves prepared statements, an open transaction, settings or advisory locks behind
 * must leave nothing to the next.
 */
let server: PgliteServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function client(s: PgliteServer): Promise<pg.Client> {
  const c = new pg.Client({ host: s.host, port: s.port, user: 'postgres', database: 'postgres' });
  c.on('error', () => {});
  await c.connect();
  return c;
}

/** Drop the connection without a goodbye, as slonik does after a failed query. */
async function drop(c: pg.Client): Promise<void> {
  const ended = new Promise((resolve) => c.once('end', resolve));
  (c as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
  await ended;
}

describe('a PGlite client connection', () => {
  it('starts on a fresh session, whatever the previous client left behind', async () => {
    server = await startPgliteServer({});
    const first = await client(server);
    await first.query('create table t (n int)');
    await first.query({ name: 'probe', text: 'select 1 as one' });
    await first.query("set application_name = 'left-behind'");
    await first.query('select pg_advisory_lock(7)');
    await first.query('begin');
    await first.query('insert into t values (1)');
    await expect(first.query({ text: 'select $1::text', values: ['a\u0000b'] })).rejects.toThrow(/0x00/);
    await drop(first);

    const second = await client(server);
    try {
      // The same name prepared again: on the old server this failed with "already exists", for good.
      expect((await second.query({ name: 'probe', text: 'select 1 as one' })).rows).toEqual([{ one: 1 }]);
      expect((await second.query('select count(*)::int as n from t')).rows).toEqual([{ n: 0 }]);
      expect((await second.query('show application_name')).rows[0].application_name).not.toBe('left-behind');
      expect((await second.query("select count(*)::int as n from pg_locks where locktype = 'advisory'")).rows).toEqual([{ n: 0 }]);
    } finally {
      await second.end();
    }
  });
});
