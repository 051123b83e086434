/**
 * Failover as clients see it (issue 34, item 2): a local cluster (two actor processes running the
 * chain writers, one token edge) on a three-node NATS cluster of its own and the test Postgres; 20
 * clients append one record at a time, each retrying with the same Idempotency-Key until answered.
 * Then 10 SIGKILLs of the execution chain's leader (restarted as a standby once the other leads),
 * then 3 SIGKILLs of the NATS node the edge is connected to (restarted after the next answer). Prints
 * the machine and, per fault, the takeover (the standby's "chain writer leads" line) and the longest
 * time no client got an acknowledgement; then checks that no acknowledged record was lost or made
 * twice and that the chain is one gapless sequence.
 *
 *   node bench/failover.ts [--kills 10] [--nats-kills 3] [--clients 20]
 *
 * Needs what the chaos tests need: nats-server (SUITE_TEST_NATS_SERVER) and the test Postgres
 * (SUITE_TEST_DATABASE_URL). Takes a few minutes.
 */
import { parseArgs } from 'node:util';
import { startAppendLoad } from '../testing/append-load.ts';
import { faultLeader, killEdgeNatsNode, roundGaps, startFailoverCluster, type FaultRound } from '../testing/failover.ts';
import { describeMachine, machineMarkdown } from './machine.ts';
import { summarize } from './stats.ts';

const { values } = parseArgs({ options: { kills: { type: 'string' }, 'nats-kills': { type: 'string' }, clients: { type: 'string' } } });
const kills = Number(values.kills ?? 10);
const natsKills = Number(values['nats-kills'] ?? 3);
const clients = Number(values.clients ?? 20);

const out = (line: string) => process.stdout.write(`${line}\n`);
out(machineMarkdown(await describeMachine()));
const f = await startFailoverCluster({ natsNodes: 3 });
let failed = false;
try {
  const load = startAppendLoad({ edge: f.edge, token: f.token, keyPrefix: 'bench-failover', workers: clients });
  const rounds: Array<FaultRound & { note?: string }> = [];
  for (let k = 0; k < kills; k++) rounds.push(await faultLeader(f, load, 'SIGKILL'));
  for (let k = 0; k < natsKills; k++) {
    const r = await killEdgeNatsNode(f, load);
    rounds.push({ ...r, note: `${r.node}${r.leaderOnIt ? ', the leader on it too' : ''}` });
  }
  await load.acknowledged(load.acks.length + 100);
  await load.stop();
  const gaps = roundGaps(load, rounds, Date.now());

  out(
    `\n${clients} clients, ${load.acks.length} appends acknowledged; answers other than an acknowledgement meanwhile: ${JSON.stringify(Object.fromEntries(load.refusals))}\n`,
  );
  out('| # | fault | takeover (ms) | fault to next ack (ms) | longest gap between acks (ms) |');
  out('|---|---|---|---|---|');
  rounds.forEach((r, i) => {
    out(`| ${i + 1} | ${r.fault}${r.note ? ` (${r.note})` : ''} | ${r.takeoverMs ?? '-'} | ${r.firstAckMs} | ${gaps[i]} |`);
  });
  for (const fault of ['SIGKILL', 'NATS node SIGKILL'] as const) {
    const g = gaps.filter((_, i) => rounds[i]?.fault === fault);
    if (g.length === 0) continue;
    const s = summarize(g);
    out(`\n${fault}: longest gap p50 ${s.p50} ms, max ${Math.max(...g)} ms over ${g.length} faults; ${g.filter((x) => x > 2000).length} above 2 s`);
  }

  // Nothing acknowledged lost, nothing made twice, no fork: the same checks as the chaos tests.
  const ids = [...new Map(load.acks.map((a) => [a.key, a.id])).values()];
  const {
    rows: [stored],
  } = await f.db.query<{ n: string }>('select count(*) as n from executions where id = any($1)', [ids]);
  const {
    rows: [shape],
  } = await f.db.query<{ n: string; hi: string; keys: string }>(
    'select count(*) as n, max(seq) as hi, count(distinct idempotency_key) as keys from executions',
  );
  const lost = ids.length - Number(stored?.n);
  const forked = Number(shape?.hi) !== Number(shape?.n);
  const duplicated = Number(shape?.n) - Number(shape?.keys);
  out(`\nacknowledged records missing: ${lost}; keys with two records: ${duplicated}; sequence gaps or forks: ${forked ? 'yes' : 'none'}`);
  failed = lost !== 0 || duplicated !== 0 || forked;
} finally {
  await f.stop();
}
process.exitCode = failed ? 1 : 0;
