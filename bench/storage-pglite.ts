/**
 * PGlite in the main thread versus in a child process (storage/pglite.ts chose the process).
 * Both serve the same loopback socket to a one-connection slonik pool; what differs is where the
 * WASM Postgres runs. Prints rows/s and how long the main event loop was blocked.
 *
 *   node bench/storage-pglite.ts            (from the repository root, Node 24)
 */
import { cpus } from 'node:os';
import { sql, type DatabasePool } from 'slonik';
import { silentLogger } from '../storage/errors.ts';
import { startPgliteServer } from '../storage/pglite-server.ts';
import { startPglite } from '../storage/pglite.ts';
import { createSuitePool } from '../storage/postgres.ts';

const BATCHES = 40;
const BATCH_ROWS = 500;
const SINGLE_ROWS = 2_000;

/** Max and p99 delay of a chain of setTimeout(0) on the main thread while `work` runs. */
async function withLag<T>(work: () => Promise<T>): Promise<{ result: T; maxLagMs: number; p99LagMs: number }> {
  const lags: number[] = [];
  let running = true;
  let last = performance.now();
  const tick = (): void => {
    const now = performance.now();
    lags.push(now - last);
    last = now;
    if (running) setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  const result = await work();
  running = false;
  lags.sort((a, b) => a - b);
  const p99 = lags[Math.floor(lags.length * 0.99)] ?? 0;
  return { result, maxLagMs: lags.at(-1) ?? 0, p99LagMs: p99 };
}

async function measure(pool: DatabasePool): Promise<Record<string, string>> {
  await pool.query(sql.unsafe`CREATE TABLE bench (id int8 PRIMARY KEY, body text NOT NULL, at timestamptz NOT NULL)`);
  let nextId = 1;
  const batched = await withLag(async () => {
    const started = performance.now();
    for (let b = 0; b < BATCHES; b++) {
      const ids: number[] = [];
      const bodies: string[] = [];
      const ats: string[] = [];
      for (let i = 0; i < BATCH_ROWS; i++) {
        ids.push(nextId++);
        bodies.push('x'.repeat(200));
        ats.push(new Date().toISOString());
      }
      await pool.transaction(async (tx) => {
        await tx.query(sql.unsafe`
          INSERT INTO bench (id, body, at)
          SELECT * FROM unnest(${sql.array(ids, 'int8')}, ${sql.array(bodies, 'text')}, ${sql.array(ats, 'timestamptz')})`);
      });
    }
    return (BATCHES * BATCH_ROWS) / ((performance.now() - started) / 1000);
  });
  const single = await withLag(async () => {
    const started = performance.now();
    for (let i = 0; i < SINGLE_ROWS; i++) {
      await pool.query(sql.unsafe`INSERT INTO bench (id, body, at) VALUES (${nextId++}, ${'y'.repeat(200)}, now())`);
    }
    return SINGLE_ROWS / ((performance.now() - started) / 1000);
  });
  const heavy = await withLag(async () => {
    const started = performance.now();
    await pool.query(sql.unsafe`SELECT sum(length(md5(i::text))) FROM generate_series(1, 1000000) AS i`);
    return performance.now() - started;
  });
  // Baseline: what the loop sees with nothing to do (scheduling noise of a busy 2-core machine).
  const idle = await withLag(() => new Promise((resolve) => setTimeout(resolve, 600)));
  const f = (n: number): string => n.toFixed(0);
  return {
    'batched rows/s': f(batched.result),
    'batched max lag ms': f(batched.maxLagMs),
    'batched p99 lag ms': f(batched.p99LagMs),
    'single rows/s': f(single.result),
    'single max lag ms': f(single.maxLagMs),
    'heavy query ms': f(heavy.result),
    'heavy max lag ms': f(heavy.maxLagMs),
    'idle max lag ms': f(idle.maxLagMs),
  };
}

async function inThread(): Promise<Record<string, string>> {
  const server = await startPgliteServer({});
  const pool = await createSuitePool(
    `postgres://postgres@${server.host}:${server.port}/postgres`,
    { maxPoolSize: 1, statementTimeoutMs: 'DISABLE_TIMEOUT', connectionTimeoutMs: 5_000, idleTimeoutMs: 'DISABLE_TIMEOUT' },
    silentLogger,
  );
  try {
    return await measure(pool);
  } finally {
    await pool.end();
    await server.stop();
  }
}

async function inChildProcess(): Promise<Record<string, string>> {
  const backend = await startPglite(undefined, silentLogger);
  const pool = await createSuitePool(
    backend.url,
    { maxPoolSize: 1, statementTimeoutMs: 'DISABLE_TIMEOUT', connectionTimeoutMs: 5_000, idleTimeoutMs: 'DISABLE_TIMEOUT' },
    silentLogger,
  );
  try {
    return await measure(pool);
  } finally {
    await pool.end();
    await backend.stop();
  }
}

console.log(`${cpus().length} x ${cpus()[0]?.model ?? 'unknown cpu'}, Node ${process.version}`);
console.table({ 'main thread': await inThread(), 'child process': await inChildProcess() });
