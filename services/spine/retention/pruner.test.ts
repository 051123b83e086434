import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageKinds, type TestStorage } from '../../../testing/storage.ts';
import { callHarness, executionBody, startExecutionHarness, type ExecutionHarness } from '../../../testing/executions.ts';
import { verifyExportText } from '../../../testing/trace-format.ts';
import { getExecution, insertTenant, prunedExecutionsBetween, pruneExecutions } from '../../../storage/index.ts';
import { readCheckpoint, readLogState, readLogTiles } from '../tlog/index.ts';
import { createTraceSigner, type ExecutionRecord } from '../../../core/chain/index.ts';
import {
  SIG_ED25519,
  ed25519NoteSigner,
  formatVkey,
  leafHash,
  nodeReaderFromTiles,
  parseCheckpoint,
  rangeHash,
  rawEd25519PublicKey,
  tilesOfNodes,
  verifyConsistency,
  verifyInclusion,
} from '../../../core/tlog/index.ts';
import { newTenantId, tenantKeyHash, newTenantKey } from '../../../core/tenancy/index.ts';
import { logEntry } from '../tlog/index.ts';
import { RetentionPruner } from './pruner.ts';
import { machineTimeout } from '../../../testing/machine-time.ts';

const ORIGIN = 'suite.test/executions';
const DAY = 86_400_000;
const traceKey = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const logKey = generateKeyPairSync('ed25519').privateKey;
const b64 = (s: string) => Buffer.from(s, 'base64');

async function tenant(db: TestStorage, plan: string): Promise<string> {
  const id = newTenantId();
  await insertTenant(db.storage.pool, { id, name: `${plan} tenant`, plan, externalRef: null, email: null, keyHash: tenantKeyHash(newTenantKey()) });
  return id;
}

/** The newest checkpoint once it covers `size` leaves (the maintainer signs one within 50 ms here). */
async function checkpointOf(h: ExecutionHarness, db: TestStorage, size: number) {
  for (let i = 0; i < 500; i++) {
    await h.actors.log!.settled();
    const c = await readCheckpoint(db.storage.pool);
    if (c && c.size >= size) return c;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no checkpoint of size ${size}`);
}

describe.each(storageKinds())('retention of execution records on $kind', ({ open }) => {
  let db: TestStorage;
  let h: ExecutionHarness;
  let free: string;
  let team: string;
  /** Records in the order recorded: [tenant or null, record]. */
  const written: Array<[string | null, ExecutionRecord]> = [];
  let before: { size: number; root: Buffer };
  let pruned: number[];

  beforeAll(async () => {
    db = await open();
    h = await startExecutionHarness({
      storage: db.storage,
      tracePrivateKeyPem: traceKey,
      log: {
        origin: ORIGIN,
        signer: ed25519NoteSigner(ORIGIN, logKey),
        vkey: formatVkey(ORIGIN, SIG_ED25519, rawEd25519PublicKey(createPublicKey(logKey))),
        checkpointEveryMs: 50,
      },
    });
    free = await tenant(db, 'free');
    team = await tenant(db, 'team');
    // Interleaved: free, team, the operator's own (no tenant), over and over; one by one, so seq follows this order.
    const owners = Array.from({ length: 30 }, (_, i) => [free, team, null][i % 3] as string | null);
    for (const ten of owners) {
      const token = await h.token(['execution:record'], ten ? { ten } : {});
      const res = await h.record(executionBody({ subject: `agent-${written.length}` }), { token });
      expect(res.status).toBe(201);
      written.push([ten, res.body]);
    }
    const c = await checkpointOf(h, db, written.length);
    before = { size: c.size, root: c.root };
    // Eight days on: past the free plan's 7, within the team plan's 30.
    const pruner = new RetentionPruner({ storage: db.storage, everyMs: 60_000, batch: 4, clock: () => Date.now() + 8 * DAY });
    const round = await pruner.pruneOnce();
    expect(round.ran).toBe(true);
    pruned = round.executions;
  }, machineTimeout(120_000));
  afterAll(async () => {
    await h?.stop();
    await db?.dispose();
  });

  it("prunes the records of a tenant whose plan limit they passed, in batches, and keeps a longer plan's and the operator's own", async () => {
    const freeSeqs = written.filter(([t]) => t === free).map(([, r]) => r.seq);
    expect(pruned).toEqual(freeSeqs);
    for (const [ten, r] of written) {
      expect((await getExecution(db.storage.pool, r.id)) === null, `seq ${r.seq}`).toBe(ten === free);
    }
    const tombstones = await prunedExecutionsBetween(db.storage.pool, 1, written.length);
    expect(tombstones.map((t) => [t.seq, t.id, t.tenantId, t.prevHash, t.hash, t.signature])).toEqual(
      written.filter(([t]) => t === free).map(([, r]) => [r.seq, r.id, free, r.prevHash, r.hash, r.signature]),
    );
    expect(tombstones.every((t) => t.checkpointSize >= t.seq)).toBe(true);
  });

  it('prunes nothing more in a round when nothing else is due, and nothing before its plan limit', async () => {
    const again = new RetentionPruner({ storage: db.storage, everyMs: 60_000, batch: 4, clock: () => Date.now() + 8 * DAY });
    expect((await again.pruneOnce()).executions).toEqual([]);
    const early = new RetentionPruner({ storage: db.storage, everyMs: 60_000, batch: 4, clock: () => Date.now() + 29 * DAY });
    expect((await early.pruneOnce()).executions).toEqual([]);
  });

  it('prunes no record that no checkpoint covers yet', async () => {
    const teamSeqs = written.filter(([t]) => t === team).map(([, r]) => r.seq);
    const cutoffs = [{ plan: 'team', before: new Date(Date.now() + DAY).toISOString() }];
    // Only up to seq 5 (as if the newest checkpoint were of size 5), then rolled back: the records stay for the tests below.
    let seqs: number[] = [];
    await db.storage.pool
      .transaction(async (tx) => {
        seqs = await pruneExecutions(tx, { cutoffs, through: 5, limit: 100, now: new Date() });
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    expect(seqs).toEqual(teamSeqs.filter((s) => s <= 5));
    expect(seqs.length).toBeGreaterThan(0);
    expect(await getExecution(db.storage.pool, written[1]![1].id)).not.toBeNull();
  });

  it('answers 410 RECORD_PRUNED on a pruned record and its receipt, naming the checkpoint that covered it; another tenant gets 404', async () => {
    const [, gone] = written[0]!;
    const own = await h.token(['execution:read'], { ten: free });
    for (const url of [`/executions/${gone.id}`, `/executions/${gone.id}/receipt`]) {
      const res = await callHarness(h, 'GET', url, own);
      expect(res.status, url).toBe(410);
      expect(res.body.error.code).toBe('RECORD_PRUNED');
      const tomb = (await prunedExecutionsBetween(db.storage.pool, gone.seq, gone.seq))[0]!;
      expect(res.body.error.message).toContain(`tree size ${tomb.checkpointSize}`);
      expect(res.body.error.message).toContain(`proof?size=${tomb.checkpointSize}`);
      const admin = await callHarness(h, 'GET', url, await h.token(['execution:read']));
      expect(admin.status).toBe(410);
      const other = await callHarness(h, 'GET', url, await h.token(['execution:read'], { ten: team }));
      expect(other.status, url).toBe(404);
    }
    const kept = await callHarness(h, 'GET', `/executions/${written[1]![1].id}`, await h.token(['execution:read'], { ten: team }));
    expect(kept.status).toBe(200);
  });

  it('keeps every proof valid: a pruned leaf and a kept record prove inclusion, the tree before is consistent with the tree after, tiles rebuild the root', async () => {
    // More records after the prune: a later tree.
    for (let i = 0; i < 5; i++) expect((await h.record(executionBody())).status).toBe(201);
    const after = await checkpointOf(h, db, written.length + 5);
    const root = parseCheckpoint(after.note.slice(0, after.note.indexOf('\n\n') + 1));
    expect(typeof root === 'string' ? root : root.root).toEqual(after.root);

    for (const [, r] of [written[0]!, written[1]!]) {
      const res = await h.app.inject({ method: 'GET', url: `/executions/${r.id}/proof?size=${after.size}` });
      expect(res.statusCode).toBe(200);
      const p = res.json();
      expect(p.leafIndex).toBe(r.seq - 1);
      // The leaf is the record's, as it was before it was pruned.
      expect(b64(p.leafHash)).toEqual(leafHash(logEntry(r)));
      expect(verifyInclusion(p.leafIndex, after.size, b64(p.leafHash), p.proof.map(b64), after.root)).toBe(true);
    }
    const res = await h.app.inject({ method: 'GET', url: `/executions/log/consistency?from=${before.size}&to=${after.size}` });
    expect(res.statusCode).toBe(200);
    expect(verifyConsistency(before.size, after.size, res.json().proof.map(b64), before.root, after.root)).toBe(true);

    const state = await readLogState(db.storage.pool);
    const wanted = tilesOfNodes([
      { height: 0, index: 0 },
      { height: 0, index: state!.size - 1 },
    ]);
    const tiles = await readLogTiles(db.storage.pool, wanted);
    expect(
      rangeHash(
        0,
        after.size,
        nodeReaderFromTiles((l, i) => tiles.get(`${l}/${i}`)),
      ),
    ).toEqual(after.root);
  });

  it('verifies the whole chain across the pruned records (links and signatures kept), and not once a tombstone is edited', async () => {
    const reader = await h.token(['execution:read']);
    const ok = await callHarness(h, 'GET', '/executions-verify-chain', reader);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ valid: true, pruned: pruned.length });
    // One record whose predecessor was pruned: its link is checked against the tombstone's hash.
    const one = await h.app.inject({ method: 'POST', url: '/executions/verify', payload: { id: written[1]![1].id } });
    expect(one.json()).toMatchObject({ mode: 'record', valid: true, seq: 2 });
    const seq = pruned[1]!;
    await db.storage.pool.query(sql.unsafe`update execution_log_pruned set hash = ${'0'.repeat(64)} where seq = ${seq}`);
    try {
      const bad = await callHarness(h, 'GET', '/executions-verify-chain', reader);
      expect(bad.body).toMatchObject({ valid: false, brokenAt: seq });
    } finally {
      await db.storage.pool.query(sql.unsafe`update execution_log_pruned set hash = ${written.find(([, r]) => r.seq === seq)![1].hash} where seq = ${seq}`);
    }
  });

  // cli/verify-retention.test.ts runs `suite verify` itself on such an export; it uses the same ExportVerifier.
  it('exports what remains so that it verifies offline as the continuation of the pruned history', async () => {
    const reader = await h.token(['execution:read']);
    const res = await h.app.inject({ method: 'GET', url: '/executions/export', headers: { authorization: `Bearer ${reader}` } });
    expect(res.statusCode).toBe(200);
    const signer = createTraceSigner(traceKey);
    const result = verifyExportText(res.body, () => createPublicKey(signer.publicKeyPem));
    expect(result).toMatchObject({ valid: true, pruned: pruned.length, records: written.length + 5 - pruned.length });
    expect(res.body.split('\n').filter((l) => l.startsWith('# {"pruned":')).length).toBe(pruned.length);
    try {
      // A tenant's own export holds its tombstones where its records stood.
      const own = await h.app.inject({
        method: 'GET',
        url: '/executions/export',
        headers: { authorization: `Bearer ${await h.token(['execution:read'], { ten: free })}` },
      });
      expect(verifyExportText(own.body, () => createPublicKey(signer.publicKeyPem))).toMatchObject({ valid: true, records: 0, pruned: pruned.length });
    } finally {
      await signer.close();
    }
  });
});
