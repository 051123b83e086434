import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inherited, startLocalCluster, type ClusterProcess, type LocalCluster } from '../compose/local-cluster.ts';
import { NatsNode } from '../compose/nats-node.ts';
import { ACTORS, mint } from '../integration/helpers.ts';
import { longestGap, type AppendLoad } from './append-load.ts';

/**
 * Failover as clients see it (issue 34, item 2), shared by the chaos tests and bench/failover.ts:
 * two actor processes run the chain writers, one edge takes appends; a fault lands in the middle of
 * traffic, and what is measured is the longest time no client got an acknowledgement around it.
 */

const RULE = '='.repeat(72);
/** Appends acknowledged between two faults, so that every fault lands in the middle of traffic. */
const ACKS_BETWEEN_FAULTS = 100;

export interface FailoverCluster {
  readonly cluster: LocalCluster;
  /** The NATS nodes of its own (none: the shared test NATS). */
  readonly nodes: readonly NatsNode[];
  readonly db: pg.Client;
  /** The edge's token listener. */
  readonly edge: string;
  /** A token with execution:record and execution:read. */
  readonly token: string;
  stop(): Promise<void>;
}

/**
 * `natsNodes` 0: the shared test NATS; 3: a NATS cluster of its own whose nodes each know the others
 * but advertise none (processes reconnect only to the nodes they were given: all three).
 */
export async function startFailoverCluster(o: { natsNodes: 0 | 3 }): Promise<FailoverCluster> {
  const nodes: NatsNode[] = [];
  const store = o.natsNodes > 0 ? await mkdtemp(join(tmpdir(), 'suite-failover-')) : undefined;
  let cluster: LocalCluster | undefined;
  let db: pg.Client | undefined;
  let self: FailoverCluster | undefined;
  const stop = async () => {
    // A killed leader still starting again is let finish, so that stopping the cluster stops it too.
    if (self) await restarted(self).catch(() => undefined);
    await db?.end().catch(() => undefined);
    await cluster?.stop(5000);
    await Promise.all(nodes.map((n) => n.stop()));
    if (store) await rm(store, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < o.natsNodes; i++) {
      const node = new NatsNode({
        name: `n${i + 1}`,
        storeDir: join(store as string, `n${i + 1}`),
        env: inherited(),
        noAdvertise: true,
        monitor: true,
        cluster: { name: 'failover', routes: nodes.map((n) => n.routeUrl) },
      });
      await node.start();
      nodes.push(node);
    }
    const { privateKey } = generateKeyPairSync('ed25519');
    cluster = await startLocalCluster({
      ...(nodes.length > 0 ? { natsUrl: nodes.map((n) => n.url).join(',') } : {}),
      processes: [
        { name: 'actors-a', roles: ACTORS },
        { name: 'actors-b', roles: ACTORS },
        { name: 'token-1', roles: ['edge:token'] },
      ],
      stalenessMs: 3000,
      env: {
        // One configured key for both writers: records stay verifiable across failovers.
        SUITE_TRACE_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        // "chain writer leads" is an info line: the standby's takeover is read from it.
        SUITE_LOG_LEVEL: 'info',
      },
    });
    db = new pg.Client({ connectionString: cluster.databaseUrl });
    await db.connect();
    const edge = cluster.process('token-1').url('token');
    const { token } = await mint(edge, cluster.adminKey, 'crash-agent', ['execution:record', 'execution:read']);
    self = { cluster, nodes, db, edge, token, stop };
    return self;
  } catch (err) {
    await stop();
    throw err;
  }
}

export interface FaultRound {
  readonly fault: 'SIGKILL' | 'SIGSTOP' | 'NATS node SIGKILL';
  /** When the fault was sent (Date.now()). */
  readonly at: number;
  /** From the fault to the standby's "chain writer leads" line (leader faults only). */
  readonly takeoverMs?: number;
  /** From the fault to the next acknowledgement. */
  readonly firstAckMs: number;
}

/** The process holding the executions lease now, if any. Holders are `host:pid:random`. */
async function leader(f: FailoverCluster): Promise<ClusterProcess | undefined> {
  const r = await f.db.query<{ holder: string }>(`select holder from chain_leases where chain = 'executions' and expires_at > now()`);
  const pid = Number(r.rows[0]?.holder.split(':')[1]);
  return ['actors-a', 'actors-b'].map((n) => f.cluster.process(n)).find((p) => p.running && p.pid === pid);
}

/** Resolves with the time stamp (ms) of the next line of `p` logging `msg` for the execution chain. */
export async function chainLine(p: ClusterProcess, msg: 'chain writer leads' | 'chain writer stands down'): Promise<number> {
  const line = await p.line((l) => {
    const entry = parseLog(l);
    return entry?.msg === msg && entry.chain === 'executions';
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

/**
 * Killed leaders still starting again, per cluster. A restart (a Node process, its migrations, its
 * banner: 3-5 s at load) runs while the next round's acknowledgements come in instead of before
 * them; the next fault waits for it, since the restarted process is the standby that must take over.
 */
const restarting = new WeakMap<FailoverCluster, Promise<void>>();

/** Resolves once every leader killed so far serves again (rejects if a restart failed). */
export function restarted(f: FailoverCluster): Promise<void> {
  return restarting.get(f) ?? Promise.resolve();
}

/**
 * SIGKILL: the leader is killed and restarted once the standby leads (so the takeover measured is
 * the standby's); the next fault waits for it as a standby (`restarted`). SIGSTOP: stopped until
 * `stoppedAcks` more appends are acknowledged (the standby leads and commits meanwhile), then
 * resumed; it must stand down.
 */
export async function faultLeader(f: FailoverCluster, load: AppendLoad, signal: 'SIGKILL' | 'SIGSTOP', stoppedAcks = 20): Promise<FaultRound> {
  await Promise.all([load.acknowledged(load.acks.length + ACKS_BETWEEN_FAULTS), restarted(f)]);
  let victim = await leader(f);
  while (!victim) {
    await load.acknowledged(load.acks.length + 1);
    victim = await leader(f);
  }
  const standby = f.cluster.process(victim.name === 'actors-a' ? 'actors-b' : 'actors-a');
  const took = chainLine(standby, 'chain writer leads');
  const before = load.acks.length;
  const at = Date.now();
  victim.signal(signal);
  const firstAck = load.acknowledged(before + 1).then(() => Date.now() - at);
  firstAck.catch(() => undefined);
  const takeoverMs = (await took) - at;
  if (signal === 'SIGKILL') {
    const killed = victim;
    const back = (async () => {
      await killed.exited();
      await killed.start();
      await killed.line((l) => l.endsWith(RULE), 'start');
    })();
    // Awaited by the next fault (or the cluster's stop); not an unhandled rejection meanwhile.
    back.catch(() => undefined);
    restarting.set(f, back);
  } else {
    await load.acknowledged(load.acks.length + stoppedAcks);
    const stoodDown = chainLine(victim, 'chain writer stands down');
    victim.signal('SIGCONT');
    await stoodDown;
  }
  return { fault: signal, at, takeoverMs, firstAckMs: await firstAck };
}

/** Kills (SIGKILL) the NATS node the edge is connected to, waits for the next acknowledgement, then restarts the node. */
export async function killEdgeNatsNode(f: FailoverCluster, load: AppendLoad): Promise<FaultRound & { node: string; leaderOnIt: boolean }> {
  await Promise.all([load.acknowledged(load.acks.length + ACKS_BETWEEN_FAULTS), restarted(f)]);
  const edgePid = `:${f.cluster.process('token-1').pid}:`;
  const names = await Promise.all(f.nodes.map((n) => (n.running ? n.clientNames() : Promise.resolve([]))));
  const index = names.findIndex((list) => list.some((name) => name.includes(edgePid)));
  if (index < 0) throw new Error(`the edge (pid ${edgePid}) is connected to no node: ${JSON.stringify(names)}`);
  const victim = f.nodes[index] as NatsNode;
  const lead = await leader(f);
  const leaderOnIt = lead !== undefined && (names[index] ?? []).some((name) => name.includes(`:${lead.pid}:`));
  const before = load.acks.length;
  const at = Date.now();
  victim.signal('SIGKILL');
  await victim.exited();
  await load.acknowledged(before + 1);
  const firstAckMs = Date.now() - at;
  // The fault happened: the edge answers through another node now. An acknowledgement may be an
  // answer that was on its way at the kill; past as many as there are clients (at most one in flight
  // each), some requests were sent after it and answered over the edge's new connection.
  await load.acknowledged(before + load.workers + 1);
  const after = await Promise.all(f.nodes.map((n) => (n.running ? n.clientNames() : Promise.resolve([]))));
  if (!after.some((list) => list.some((name) => name.includes(edgePid))))
    throw new Error(`the edge answered but is connected to no surviving node: ${JSON.stringify(after)}`);
  await victim.start();
  return { fault: 'NATS node SIGKILL', at, firstAckMs, node: victim.o.name, leaderOnIt };
}

/** Each round's longest gap between acknowledgements: from its fault up to the next round's (or `end`). */
export function roundGaps(load: AppendLoad, rounds: readonly FaultRound[], end: number): number[] {
  return rounds.map((r, i) => longestGap(load.ackTimes, r.at, rounds[i + 1]?.at ?? end));
}
