import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { printOutputOnFailure } from '../helpers.ts';
import { expectChainHoldsEveryAck } from './append-load.ts';
import { percentile, startAppendLoad, type AppendLoad } from '../../testing/append-load.ts';
import { faultLeader, roundGaps, startFailoverCluster, type FailoverCluster, type FaultRound } from '../../testing/failover.ts';
import { expectLogIntact } from '../../testing/log-fsck.ts';
import { machineSlowdown } from '../../testing/machine-time.ts';

/**
 * Chain-writer failover (issue 25, parts 4 and 9; issue 34, item 2): two actor processes each run the
 * chain writers with the default lease (config: SUITE_CHAIN_LEASE_MS, SUITE_CHAIN_LEASE_RENEW_MS);
 * whichever leads the execution chain is killed with SIGKILL five times (each process twice or
 * more: the leadership alternates; `npx node bench/failover.ts` runs ten), then stopped with SIGSTOP
 * and resumed three times, while 20 clients keep appending (retrying with the same Idempotency-Key until
 * answered, as a careful client does). Takeover is measured on the standby's side: from the moment
 * the test sends the signal to the time stamp of the standby's own "chain writer leads" log line
 * (same machine clock). What clients see is the longest time with no acknowledgement around each
 * fault: requests in flight are carried to the new leader (bus/carry.ts), so it stays under 2 s.
 * Afterwards every acknowledged record is in the chain as acknowledged, no key made two records, the
 * sequence has no gap (no fork), the chain verifies and the transparency log checks (fsck).
 */
vi.setConfig({ testTimeout: 300_000, hookTimeout: 90_000 });

const KILLS = 5;
const STOPS = 3;
const CLIENTS = 20;
/** Issue 25: takeover under 2 s. */
const TAKEOVER_BOUND_MS = 2000;
/**
 * Issue 34: the longest gap between acknowledgements under 2 s on a quiet machine. A loaded one
 * stretches every step of a takeover (the lease's expiry is fixed, the rest is CPU): the bound
 * grows with the measured slowdown beyond the lease's part, and the raw figures are printed.
 */
const GAP_BOUND_MS = 2000;
const gapBound = () => Math.round(GAP_BOUND_MS + 500 * (machineSlowdown() - 1));

let f: FailoverCluster;
beforeAll(async () => {
  f = await startFailoverCluster({ natsNodes: 0 });
});
afterAll(async () => {
  await f?.stop();
});
printOutputOnFailure(() => f?.cluster.output() ?? '');

describe('the chain-writer leader killed or stopped under load', () => {
  test(`${KILLS} SIGKILLs of the leader: the standby takes over in under 2 s, clients see no gap between acknowledgements of 2 s, and no acknowledged record is lost or forked`, async () => {
    const load = startAppendLoad({ edge: f.edge, token: f.token, keyPrefix: 'kill', workers: CLIENTS });
    const rounds: FaultRound[] = [];
    for (let k = 0; k < KILLS; k++) rounds.push(await faultLeader(f, load, 'SIGKILL'));
    await load.acknowledged(load.acks.length + 100);
    await load.stop();
    const gaps = roundGaps(load, rounds, Date.now());
    report('SIGKILL', load, rounds, gaps);
    await expectChainHoldsEveryAck(f.db, load.acks, f.edge, f.token);
    await expectLogIntact({ base: f.edge, token: f.token, databaseUrl: f.cluster.databaseUrl });
    expect(Math.max(...rounds.map((r) => r.takeoverMs ?? 0))).toBeLessThan(TAKEOVER_BOUND_MS);
    expect(Math.max(...gaps), `gaps ${gaps.join(', ')} ms; bound ${gapBound()} ms at slowdown ${machineSlowdown().toFixed(2)}`).toBeLessThan(gapBound());
  });

  test(`${STOPS} SIGSTOPs of the leader: the standby takes over in under 2 s, clients see no gap of 2 s although the stopped leader still takes requests, and the leader resumed after losing its lease writes nothing`, async () => {
    const load = startAppendLoad({ edge: f.edge, token: f.token, keyPrefix: 'stop', workers: CLIENTS });
    const rounds: FaultRound[] = [];
    for (let k = 0; k < STOPS; k++) rounds.push(await faultLeader(f, load, 'SIGSTOP'));
    await load.acknowledged(load.acks.length + 100);
    await load.stop();
    const gaps = roundGaps(load, rounds, Date.now());
    report('SIGSTOP', load, rounds, gaps);
    await expectChainHoldsEveryAck(f.db, load.acks, f.edge, f.token);
    await expectLogIntact({ base: f.edge, token: f.token, databaseUrl: f.cluster.databaseUrl });
    expect(Math.max(...rounds.map((r) => r.takeoverMs ?? 0))).toBeLessThan(TAKEOVER_BOUND_MS);
    expect(Math.max(...gaps), `gaps ${gaps.join(', ')} ms; bound ${gapBound()} ms at slowdown ${machineSlowdown().toFixed(2)}`).toBeLessThan(gapBound());
  });
});

function report(fault: string, load: AppendLoad, rounds: readonly FaultRound[], gaps: readonly number[]): void {
  const takeovers = rounds.map((r) => r.takeoverMs ?? 0);
  process.stdout.write(
    `chaos writer failover (${fault}, ${CLIENTS} clients, slowdown ${machineSlowdown().toFixed(2)}): ${load.acks.length} appends acknowledged across ${rounds.length} faults; ` +
      `takeover on the standby (ms) ${takeovers.join(', ')}; longest gap between acknowledgements (ms) ${gaps.join(', ')}: ` +
      `p50 ${percentile(gaps, 50)}, max ${Math.max(...gaps)}; refusals meanwhile ${JSON.stringify(Object.fromEntries(load.refusals))}\n`,
  );
}
