import { generateKeyPairSync } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startLocalCluster, type ClusterProcess, type LocalCluster } from '../compose/local-cluster.ts';
import { ACTORS, call, mint, printOutputOnFailure } from './helpers.ts';

/**
 * The execution chain writer killed with SIGKILL ten times while appends keep arriving (issue 3,
 * "Crash"). Two actor processes each run a chain writer; whichever leads is killed, restarted, and
 * the other takes over once the lease runs out. Clients retry with the same Idempotency-Key until
 * answered, as a careful client would. Afterwards every acknowledged record is in the chain, with
 * the hash it was acknowledged with, no key produced two records, the sequence has no gap, and the
 * chain verifies.
 */
vi.setConfig({ testTimeout: 240_000, hookTimeout: 90_000 });

const KILLS = 10;
const WORKERS = 16;
const LEASE_MS = 1000;
/** Appends acknowledged between two kills, so that every kill lands in the middle of traffic. */
const ACKS_BETWEEN_KILLS = 150;

let cluster: LocalCluster;
let db: pg.Client;

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
      SUITE_CHAIN_LEASE_MS: String(LEASE_MS),
    },
  });
  db = new pg.Client({ connectionString: cluster.databaseUrl });
  await db.connect();
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

interface Ack {
  key: string;
  id: string;
  seq: number;
  hash: string;
}

describe('the execution chain writer killed under load', () => {
  test(`${KILLS} SIGKILLs of the leading writer lose no acknowledged record and leave a gapless, verifying chain`, async () => {
    const edge = cluster.process('token-1').url('token');
    const { token } = await mint(edge, cluster.adminKey, 'crash-agent', ['execution:record', 'execution:read']);
    const acks: Ack[] = [];
    const refusals = new Map<string, number>();
    let next = 0;
    let loading = true;

    async function appendUntilAcknowledged(i: number): Promise<void> {
      const key = `crash-${i}`;
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        const a = await call(`${edge}/executions`, {
          token, timeoutMs: 10_000, headers: { 'idempotency-key': key },
          body: { subject: 'crash-agent', scope: ['crm:write'], module: 'crm', action: 'update', input: { i }, outcome: 'success' },
        }).catch((err: unknown) => ({ status: 0, body: undefined, code: (err as Error).name }));
        if (a.status === 200 || a.status === 201) {
          const r = a.body as { id: string; seq: number; hash: string };
          acks.push({ key, id: r.id, seq: r.seq, hash: r.hash });
          return;
        }
        const what = `${a.status} ${a.code ?? ''}`;
        refusals.set(what, (refusals.get(what) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`append ${key} not acknowledged within 60 s`);
    }

    const workers = Promise.all(Array.from({ length: WORKERS }, async () => {
      while (loading) await appendUntilAcknowledged(next++);
    }));

    const failovers: number[] = [];
    for (let k = 0; k < KILLS; k++) {
      const target = acks.length + ACKS_BETWEEN_KILLS;
      while (acks.length < target) await new Promise((r) => setTimeout(r, 20));
      let victim: ClusterProcess | undefined;
      while (!(victim = await leader())) await new Promise((r) => setTimeout(r, 20));
      const before = acks.length;
      const killedAt = Date.now();
      victim.signal('SIGKILL');
      await victim.exited();
      // Restarted at once: it comes back as the standby (or leads again if it wins the lease).
      await victim.start();
      while (acks.length === before) await new Promise((r) => setTimeout(r, 10));
      failovers.push(Date.now() - killedAt);
    }
    loading = false;
    await workers;

    console.log(`chain crash: ${acks.length} appends acknowledged across ${KILLS} SIGKILLs; time from kill to the next acknowledgement (ms): ${failovers.join(', ')}; refusals meanwhile: ${JSON.stringify(Object.fromEntries(refusals))}`);

    // No key was acknowledged as two different records.
    const byKey = new Map<string, Ack>();
    for (const a of acks) {
      const seen = byKey.get(a.key);
      if (seen) expect(seen.id).toBe(a.id);
      byKey.set(a.key, a);
    }
    // Every acknowledged record is stored exactly as acknowledged.
    const stored = await db.query<{ id: string; seq: string; hash: string; idempotency_key: string }>(
      'select id, seq, hash, idempotency_key from executions where id = any($1)', [[...byKey.values()].map((a) => a.id)]);
    const storedById = new Map(stored.rows.map((r) => [r.id, r]));
    const missing = [...byKey.values()].filter((a) => {
      const row = storedById.get(a.id);
      return !row || Number(row.seq) !== a.seq || row.hash !== a.hash || row.idempotency_key !== a.key;
    });
    expect(missing).toEqual([]);
    // One gapless sequence, and no record beyond those the clients asked for.
    const { rows: [shape] } = await db.query<{ n: string; lo: string; hi: string; keys: string }>(
      'select count(*) as n, min(seq) as lo, max(seq) as hi, count(distinct idempotency_key) as keys from executions');
    expect(Number(shape!.lo)).toBe(1);
    expect(Number(shape!.hi)).toBe(Number(shape!.n));
    expect(Number(shape!.keys)).toBe(Number(shape!.n));
    expect(Number(shape!.n)).toBe(byKey.size);
    const verified = await call(`${edge}/executions-verify-chain`, { token, timeoutMs: 60_000 });
    expect(verified.body).toMatchObject({ valid: true, checked: Number(shape!.n) });
  });
});
