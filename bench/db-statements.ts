/**
 * What the embedded Postgres does per request (issue 28, part 1): pg_stat_statements of the
 * embedded server under a validate or an append load. The embedded server does not load the
 * extension (its settings are the product's: storage/embedded-postgres.ts), and a benchmark must
 * not change them; so this script, on a throw-away data folder only, starts the suite once, sets
 * `shared_preload_libraries` with ALTER SYSTEM over the server's own socket, stops the suite and
 * starts it again on the same folder, then runs the load and reads the statistics.
 *
 *   node bench/db-statements.ts [--load validate|append] [--seconds 10] [--connections 50]
 *
 * Only the server's Unix socket in its own folder and the suite's loopback listeners are reached.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { callJson, mint } from './api.ts';
import { cleanEnv, killAllChildren, spawnNode, type Child } from './child.ts';
import { waitIdle } from './cpu.ts';
import { APPEND_BODY } from './executions.ts';
import { measure } from './load.ts';

const SUITE_PORTS = ['SUITE_TOKEN_PORT', 'SUITE_SCHEDULER_PORT', 'SUITE_BENCH_PORT', 'SUITE_CONNECTOR_PORT', 'SUITE_TRUST_PORT', 'SUITE_DASHBOARD_PORT'];

async function start(dataDir: string): Promise<{ child: Child; base: string; adminKey: string }> {
  const env = cleanEnv({
    SUITE_LOG_LEVEL: 'warn',
    SUITE_RATE_LIMIT_MAX: '100000000',
    SUITE_HOST: '127.0.0.1',
    ...Object.fromEntries(SUITE_PORTS.map((p) => [p, '0'])),
  });
  const child = spawnNode('cli/suite.ts', ['start', '--data-dir', dataDir], { env });
  const port = (await child.waitFor(/^token\s+http:\/\/127\.0\.0\.1:(\d+)/m, 120_000))[1];
  const { adminKey } = JSON.parse(await readFile(join(dataDir, 'secrets.json'), 'utf8')) as { adminKey: string };
  return { child, base: `http://127.0.0.1:${port}`, adminKey };
}

/** A client on the embedded server's socket, found as storage/embedded-postgres.ts names it (user `suite`, its password file). */
async function connect(dataDir: string): Promise<pg.Client> {
  const dbPath = join(dataDir, 'database');
  const cluster = join(dbPath, 'postgres');
  const host = join(tmpdir(), `suite-pg-${createHash('sha256').update(cluster).digest('hex').slice(0, 16)}`);
  const password = (await readFile(join(dbPath, 'postgres-password'), 'utf8')).trim();
  const client = new pg.Client({ host, port: 5432, user: 'suite', password, database: 'postgres' });
  // A server stopping under an idle client ends it with an 'error' event: said, not thrown.
  client.on('error', (err) => process.stderr.write(`db-statements: the server ended a connection (${err.message})\n`));
  await client.connect();
  return client;
}

/** The table a statement writes (else reads): two statements can share their first words. */
function labelOf(query: string): string {
  // A group insert starts with its lease check (`with lease as (select … from chain_leases …)`):
  // the table it inserts into names it, before any it reads.
  const write = /insert into (\w+)|update (\w+)|delete from (\w+)/i.exec(query);
  if (write !== null) return `writes ${write.slice(1).find((t) => t !== undefined)}`;
  return `reads ${/from (\w+)/i.exec(query)?.[1] ?? '?'}`;
}

interface StatementRow {
  query: string;
  calls: string;
  total_exec_time: number;
  rows: string;
  shared_blks_hit: string;
  shared_blks_written: string;
  wal_records: string;
  wal_bytes: string;
}

export async function dbStatements(kind: 'validate' | 'append', o: { seconds: number; connections: number }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'suite-dbstat-'));
  const dataDir = join(dir, 'data');
  try {
    let suite = await start(dataDir);
    let db = await connect(dataDir);
    await db.query("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'");
    await db.end();
    await suite.child.stop(30_000);
    suite = await start(dataDir);
    db = await connect(dataDir);
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    process.stderr.write(`db-statements: ${kind}: pg_stat_statements loaded, load starting\n`);
    const { token } = await mint(suite.base, suite.adminKey, 'bench-agent', ['auth:token:validate', 'audit:read', 'execution:record']);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const body = kind === 'validate' ? { token, requiredScope: 'audit:read' } : APPEND_BODY;
    const url = `${suite.base}${kind === 'validate' ? '/auth/token/validate' : '/executions'}`;
    const check = await callJson(url, { headers, body });
    if (check.status >= 300) throw new Error(`${kind} check: ${check.status} ${JSON.stringify(check.body)}`);
    const pid = suite.child.proc.pid ?? 0;
    await waitIdle(pid, 30_000);
    await db.query('SELECT pg_stat_statements_reset()');
    const load = await measure(
      { name: kind, url, method: 'POST', headers, body: JSON.stringify(body) },
      { connections: o.connections, pipelining: 1, warmupSeconds: 0, seconds: o.seconds, attempts: 1, foreignLimitPct: 100 },
      pid,
    );
    await waitIdle(pid, 30_000); // the audit entries of the last answers are committed too
    const { rows } = await db.query<StatementRow>(
      `SELECT query, calls, total_exec_time, rows, shared_blks_hit, shared_blks_written, wal_records, wal_bytes
         FROM pg_stat_statements WHERE query NOT ILIKE '%pg_stat_statements%' ORDER BY total_exec_time DESC LIMIT 8`,
    );
    await db.end();
    await suite.child.stop(30_000);
    const n = load.total;
    const per = (v: string | number) => (Number(v) / n).toFixed(2);
    return [
      `${kind}: ${n.toLocaleString('en-US')} requests in ${o.seconds} s at ${o.connections} connections (load average ${(loadavg()[0] ?? 0).toFixed(1)}); Postgres processes' CPU ${load.serverThreads['Postgres processes'] ?? 0}% of a core.`,
      '',
      '| statement (pg_stat_statements, top 8 by execution time) | calls per request | rows per call | exec µs per request | WAL bytes per request | shared blocks hit per request |',
      '|---|---:|---:|---:|---:|---:|',
      ...rows.map(
        (r) =>
          `| ${labelOf(r.query)}: \`${r.query.replace(/\s+/g, ' ').slice(0, 70).replace(/\|/g, '\\|')}…\` | ${per(r.calls)} | ${(Number(r.rows) / Math.max(1, Number(r.calls))).toFixed(1)} | ${((r.total_exec_time * 1000) / n).toFixed(1)} | ${per(r.wal_bytes)} | ${per(r.shared_blks_hit)} |`,
      ),
    ].join('\n');
  } finally {
    killAllChildren();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      load: { type: 'string', default: 'validate,append' },
      seconds: { type: 'string', default: '10' },
      connections: { type: 'string', default: '50' },
    },
  });
  const watchdog = setTimeout(() => {
    killAllChildren();
    process.exit(2);
  }, 300_000);
  watchdog.unref();
  for (const kind of values.load.split(',')) {
    if (kind !== 'validate' && kind !== 'append') throw new Error(`--load: unknown load ${kind}`);
    process.stdout.write(`${await dbStatements(kind, { seconds: Number(values.seconds), connections: Number(values.connections) })}\n\n`);
  }
  clearTimeout(watchdog);
}
