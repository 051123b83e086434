import { generateKeyPairSync } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startLocalCluster, type ClusterProcess, type LocalCluster } from '../../compose/local-cluster.ts';
import { ACTORS, mint, printOutputOnFailure } from '../helpers.ts';
import { expectChainHoldsEveryAck, percentile, startAppendLoad, type AppendLoad } from './append-load.ts';
import { expectLogIntact } from '../../testing/log-fsck.ts';

/**
 * Chain-writer failover (issue 25, parts 4 and 9): two actor processes each run the chain writers
 * with the default lease (config: SUITE_CHAIN_LEASE_MS, SUITE_CHAIN_LEASE_RENEW_MS); whichever leads
 * the execution chain is killed with SIGKILL ten times, then stopped with SIGSTOP and resumed three
 * times, while clients keep appending (retrying with the same Idempotency-Key until answered, as a
 * careful client does). Takeover is measured on the standby's side: from the moment the test sends
 * the signal to the time stamp of the standby's own "chain writer leads" log line (same machine
 * clock). Afterwards every acknowledged record is in the chain as acknowledged, no key made two
 * records, the sequence has no gap (no fork), and the chain verifies.
 */
vi.setConfig({ testTimeout: 240_000, hookTimeout: 90_000 });

const KILLS = 10;
const STOPS = 3;
/** Appends acknowledged between two faults, so that every fault lands in the middle of traffic. */
const ACKS_BETWEEN_FAULTS = 100;
const ACKS_WHILE_STOPPED = 20;
/** The one timing bound issue 25 asks a test to hold: takeover under 2 s (p99; all of them here). */
const TAKEOVER_BOUND_MS = 2000;
const RULE = '='.repeat(72);

let cluster: LocalCluster;
let db: pg.Client;
let edge: string;
let token: string;

beforeAll(async () => {
  const { privateKey } = generateKeyPairSync('ed25519');
  cluster = await startLocalCluster({
    processes: [
      { name: 'actors-a', roles: ACTORS },
      { name: 'actors-b', roles: ACTORS },
      { name: 'token-1', roles: ['edge:token'] },
    ],
    stalenessMs: 3000,
    env: {
      // One configured key for both writers: records stay verifiable across failovers (an
      // ephemeral key would, by design, stop verifying once its writer died).
      SUITE_TRACE_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      // "chain writer leads" is an info line: the standby's takeover is read from it.
      SUITE_LOG_LEVEL: 'info',
    },
  });
  db = new pg.Client({ connectionString: cluster.databaseUrl });
  await db.connect();
  edge = cluster.process('token-1').url('token');
  ({ token } = await mint(edge, cluster.adminKey, 'crash-agent', ['execution:record', 'execution:read']));
});
afterAll(async () => {
  await db?.end();
  await cluster?.stop();
});
printOutputOnFailure(() => cluster?.output() ?? '');

/** The actor process holding the executions lease now, if any. Holders are `host:pid:random`. */
async function leader(): Promise<ClusterProcess | undefined> {
  const r = await db.query<{ holder: string }>(`select holder from chain_leases where chain = 'executions' and expires_at > now()`);
  const pid = Number(r.rows[0]?.holder.split(':')[1]);
  return ['actors-a', 'actors-b'].map((n) => cluster.process(n)).find((p) => p.running && p.pid === pid);
}

/** Resolves with the time stamp (ms) of the next "chain writer leads" line of `p` for the execution chain. */
async function leadsAt(p: ClusterProcess): Promise<number> {
  const line = await p.line((l) => {
    const entry = parseLog(l);
    return entry?.msg === 'chain writer leads' && entry.chain === 'executions';
  });
  return (parseLog(line) as { time: number }).time;
}

function parseLog(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** Waits for the faulted leader and the standby, then `fault`s the leader; answers the takeover time. */
async function failOver(load: AppendLoad, fault: (victim: ClusterProcess, takenOver: Promise<number>) => Promise<void>): Promise<{ takeoverMs: number; firstAckMs: number }> {
  await load.acknowledged(load.acks.length + ACKS_BETWEEN_FAULTS);
  let victim: ClusterProcess | undefined;
  while (!(victim = await leader())) await load.acknowledged(load.acks.length + 1);
  const standby = victim.name === 'actors-a' ? cluster.process('actors-b') : cluster.process('actors-a');
  const took = leadsAt(standby);
  const before = load.acks.length;
  const faultAt = Date.now();
  const faulted = fault(victim, took);
  const takeoverMs = (await took) - faultAt;
  await load.acknowledged(before + 1);
  const firstAckMs = Date.now() - faultAt;
  await faulted;
  return { takeoverMs, firstAckMs };
}

describe('the chain-writer leader killed or stopped under load', () => {
  test(`${KILLS} SIGKILLs of the leader: the standby takes over in under 2 s every time, and no acknowledged record is lost or forked`, async () => {
    const load = startAppendLoad({ edge, token, keyPrefix: 'kill' });
    const rounds: Array<{ takeoverMs: number; firstAckMs: number }> = [];
    for (let k = 0; k < KILLS; k++) {
      rounds.push(await failOver(load, async (victim, takenOver) => {
        victim.signal('SIGKILL');
        await victim.exited();
        // Restarted once the standby leads (so the measured takeover is the standby's, never the
        // restarted process winning the lease back); a standby again once it has started.
        await takenOver;
        await victim.start();
        await victim.line((l) => l.endsWith(RULE), 'start');
      }));
    }
    await load.stop();
    const takeovers = rounds.map((r) => r.takeoverMs);
    report('SIGKILL', load, rounds);
    await expectChainHoldsEveryAck(db, load.acks, edge, token);
    await expectLogIntact({ base: edge, token, databaseUrl: cluster.databaseUrl });
    expect(Math.max(...takeovers)).toBeLessThan(TAKEOVER_BOUND_MS);
  });

  test(`${STOPS} SIGSTOPs of the leader: the standby takes over in under 2 s, and the leader resumed after losing its lease writes nothing`, async () => {
    const load = startAppendLoad({ edge, token, keyPrefix: 'stop' });
    const rounds: Array<{ takeoverMs: number; firstAckMs: number }> = [];
    for (let k = 0; k < STOPS; k++) {
      rounds.push(await failOver(load, async (victim) => {
        victim.signal('SIGSTOP');
        // The standby leads (failOver waits for it) and commits; then the old leader wakes up. Few
        // acknowledgements: half the appends go to the stopped process's subscription meanwhile and
        // wait for the edge's timeout.
        await load.acknowledged(load.acks.length + ACKS_WHILE_STOPPED);
        const stoodDown = victim.line((l) => {
          const entry = parseLog(l);
          return entry?.msg === 'chain writer stands down' && entry.chain === 'executions';
        });
        victim.signal('SIGCONT');
        await stoodDown;
      }));
    }
    await load.stop();
    report('SIGSTOP', load, rounds);
    await expectChainHoldsEveryAck(db, load.acks, edge, token);
    await expectLogIntact({ base: edge, token, databaseUrl: cluster.databaseUrl });
    expect(Math.max(...rounds.map((r) => r.takeoverMs))).toBeLessThan(TAKEOVER_BOUND_MS);
  });
});

function report(fault: string, load: AppendLoad, rounds: ReadonlyArray<{ takeoverMs: number; firstAckMs: number }>): void {
  const takeovers = rounds.map((r) => r.takeoverMs);
  const acks = rounds.map((r) => r.firstAckMs);
  process.stdout.write(
    `chaos writer failover (${fault}): ${load.acks.length} appends acknowledged across ${rounds.length} faults; ` +
      `takeover on the standby (ms) ${takeovers.join(', ')}: p50 ${percentile(takeovers, 50)}, p99 ${percentile(takeovers, 99)}; ` +
      `fault to next acknowledgement (ms) p50 ${percentile(acks, 50)}, p99 ${percentile(acks, 99)}; ` +
      `refusals meanwhile ${JSON.stringify(Object.fromEntries(load.refusals))}\n`,
  );
}
