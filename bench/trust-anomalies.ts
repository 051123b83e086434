/**
 * GET /anomalies over 100,000 stored interactions (issue 17: p99 under 200 ms), on PGlite and on
 * Postgres, and what recording one more interaction costs at that size (detection is incremental).
 *
 *   node bench/trust-anomalies.ts [--interactions 100000] [--requests 300]
 *
 * The tables are filled in bulk by SQL (generate_series) in the shape the service writes: chains
 * of ten interactions, parent to child, each with its path and depth; 500 stalled chains (newest
 * interaction pending an hour ago), 1,000 cycles and 500 disagreements recorded as anomalies.
 * Then requests go through the real edge, capability check and bus. Targets 127.0.0.1 only.
 */
import { parseArgs } from 'node:util';
import { sql } from 'slonik';
import { startTestSuite, type TestSuite } from '../testing/suite.ts';
import { createTestDatabase } from '../testing/storage.ts';
import { summarize, type Summary } from './stats.ts';

const { values } = parseArgs({ options: { interactions: { type: 'string', default: '100000' }, requests: { type: 'string', default: '300' } } });
const interactions = Number(values.interactions);
const requests = Number(values.requests);
const PER_CHAIN = 10;

async function fill(t: TestSuite): Promise<void> {
  const pool = t.suite.storage!.pool;
  const chains = Math.ceil(interactions / PER_CHAIN);
  await pool.query(sql.unsafe`insert into trust_chains (id, started_at, last_activity_at, last_outcome, interactions, max_depth)
    select 'bench-' || c, now() - interval '2 hours', now() - (c % 600) * interval '1 second',
      case when c <= 500 then 'pending' else 'success' end, ${PER_CHAIN}, ${PER_CHAIN} from generate_series(1, ${chains}) c`);
  await pool.query(sql.unsafe`update trust_chains set last_activity_at = now() - interval '1 hour' where last_outcome = 'pending'`);
  await pool.query(sql.unsafe`insert into trust_interactions (id, chain_id, parent_id, caller, callee, outcome, depth, path, children, recorded_by, at)
    select 'int-' || c || '-' || d, 'bench-' || c, case when d = 1 then null else 'int-' || c || '-' || (d - 1) end,
      'agent-' || (d - 1), 'agent-' || d,
      case when c <= 500 and d = ${PER_CHAIN} then 'pending' else 'success' end, d,
      array(select 'agent-' || k from generate_series(0, d) k), case when d < ${PER_CHAIN} then 1 else 0 end, 'bench',
      now() - interval '2 hours' + d * interval '1 second'
    from generate_series(1, ${chains}) c, generate_series(1, ${PER_CHAIN}) d`);
  await pool.query(sql.unsafe`insert into trust_anomalies (key, kind, chain_id, records, detail, detected_at, updated_at)
    select 'cycle:int-' || c || '-3', 'cycle', 'bench-' || c, jsonb_build_array('int-' || c || '-3', 'int-' || c || '-2'), 'bench cycle',
      now() - c * interval '1 second', now() - c * interval '1 second' from generate_series(501, 1500) c`);
  await pool.query(sql.unsafe`insert into trust_anomalies (key, kind, chain_id, records, detail, detected_at, updated_at)
    select 'disagreement:int-' || c || '-5', 'disagreement', 'bench-' || c, jsonb_build_array('int-' || c || '-5'), 'bench disagreement',
      now() - c * interval '1 second', now() - c * interval '1 second' from generate_series(1501, 2000) c`);
  await pool.query(sql.unsafe`analyze`);
}

/** The database's own time for the queries one GET /anomalies runs (stalled chains, their last interactions, anomalies). */
async function explain(t: TestSuite): Promise<string> {
  const pool = t.suite.storage!.pool;
  const ms = async (query: ReturnType<typeof sql.unsafe>) => {
    const rows = (await pool.any(query)) as unknown as Array<Record<string, string>>;
    const line = rows.map((r) => Object.values(r)[0]).find((l) => /Execution Time/.test(String(l)));
    return String(line).replace(/.*Execution Time: /, '');
  };
  const before = new Date(Date.now() - 300_000).toISOString();
  const stalled = await ms(
    sql.unsafe`explain analyze select id from trust_chains where last_outcome = 'pending' and last_activity_at < ${before} order by last_activity_at, id limit 100`,
  );
  const chains = Array.from({ length: 100 }, (_, i) => `bench-${i + 1}`);
  const last = await ms(
    sql.unsafe`explain analyze select distinct on (chain_id) chain_id, id from trust_interactions where chain_id = any(${sql.array(chains, 'text')}) order by chain_id, at desc, id desc`,
  );
  const recent = await ms(sql.unsafe`explain analyze select key from trust_anomalies order by updated_at desc, key limit 100`);
  return `stalled chains ${stalled}, their last interactions ${last}, recorded anomalies ${recent}`;
}

async function timed(n: number, call: () => Promise<Response>): Promise<Summary> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    const res = await call();
    await res.arrayBuffer();
    if (res.status !== 200 && res.status !== 201) throw new Error(`status ${res.status}`);
    ms.push(performance.now() - start);
  }
  return summarize(ms);
}

const row = (name: string, s: Summary) => `| ${name} | ${s.n} | ${s.p50.toFixed(1)} | ${s.p99.toFixed(1)} | ${s.max.toFixed(1)} |`;

async function run(kind: string, env: Record<string, string>): Promise<string[]> {
  const t = await startTestSuite(env);
  try {
    const fillStart = performance.now();
    await fill(t);
    process.stderr.write(`bench: ${kind}: ${interactions} interactions filled in ${((performance.now() - fillStart) / 1000).toFixed(1)} s\n`);
    const plans = await explain(t);
    const { token } = await t.mint(['trust:*']);
    const headers = { authorization: `Bearer ${token}` };
    const get = (path: string) => () => fetch(t.url('trust', path), { headers });
    await timed(20, get('/anomalies'));
    // The edge alone (public route, no bus, no database), beside it: what the machine adds to every call.
    const edge = await timed(requests, () => fetch(t.url('trust', '/obligations')));
    // A guarded route with one small query: the capability check, its audit entry and the bus round trip.
    const guarded = await timed(requests, get('/chains?limit=1'));
    const all = await timed(requests, get('/anomalies'));
    const stalls = await timed(requests, get('/anomalies?kind=stall'));
    const cycles = await timed(requests, get('/anomalies?kind=cycle&limit=500'));
    const check = (await (await get('/anomalies?limit=500')()).json()) as { anomalies: Array<{ kind: string }> };
    const byKind: Record<string, number> = {};
    for (const a of check.anomalies) byKind[a.kind] = (byKind[a.kind] ?? 0) + 1;
    const counts = Object.entries(byKind);
    let n = 0;
    const post = () =>
      fetch(t.url('trust', '/interactions'), {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ caller: 'agent-10', callee: `late-${n++}`, parentId: `int-${600 + (n % 1000)}-10`, outcome: 'success' }),
      });
    const record = await timed(Math.min(requests, 300), post);
    return [
      row(`${kind}: GET /obligations (edge alone, for comparison)`, edge),
      row(`${kind}: GET /chains?limit=1 (a guarded route, one small query)`, guarded),
      row(`${kind}: GET /anomalies (limit 100)`, all),
      row(`${kind}: GET /anomalies?kind=stall`, stalls),
      row(`${kind}: GET /anomalies?kind=cycle&limit=500`, cycles),
      row(`${kind}: POST /interactions (incremental detection)`, record),
      `| ${kind}: first page of 500 holds | ${counts.map(([k, c]) => `${k} ${c}`).join(', ')} | | | |`,
      `| ${kind}: database time of the request's queries (EXPLAIN ANALYZE) | ${plans} | | | |`,
    ];
  } finally {
    await t.stop();
  }
}

const database = await createTestDatabase();
try {
  const lines = [
    `GET /anomalies over ${interactions.toLocaleString('en')} stored interactions (${Math.ceil(interactions / PER_CHAIN).toLocaleString('en')} chains), sequential requests through the trust edge, ms:`,
    '',
    '| What | n | p50 | p99 | max |',
    '|---|---|---|---|---|',
    ...(await run('PGlite', {})),
    ...(await run('Postgres', { SUITE_DATABASE_URL: database.url })),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await database.drop();
}
