import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTraceSigner, GENESIS_HASH } from '../../../core/chain/index.ts';
import {
  leafHash,
  logKey,
  perfectRoot,
  nodeReaderFromTiles,
  openCheckpoint,
  parseVkey,
  ed25519NoteVerifier,
  rangeHash,
  rangeNodes,
  tilePath,
  tilesOfNodes,
  tileWidthAt,
  verifyConsistency,
  verifyInclusion,
  type TrustedCheckpoint,
} from '../../../core/tlog/index.ts';
import { signedChain } from '../../../testing/trace-format.ts';
import { executionBody, startExecutionHarness, type ExecutionHarness } from '../../../testing/executions.ts';
import { ensureChainHead, insertExecutions, registerTraceKey, type Storage } from '../../../storage/index.ts';
import { storageKinds, type TestStorage } from '../../../testing/storage.ts';
import { machineTimeout } from '../../../testing/machine-time.ts';

const ORIGIN = 'suite.test/executions/log';
const pem = () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/** A chain of `n` records written straight to storage before the suite starts (HTTP would take long). */
/** The execution routes and actors, the log kept with the trace key, a checkpoint every 50 ms. */
async function startLogHarness(storage: Storage, key: string): Promise<ExecutionHarness> {
  const lk = logKey(ORIGIN, createPrivateKey(key));
  return startExecutionHarness({ storage, tracePrivateKeyPem: key, log: { origin: ORIGIN, signer: lk.signer, vkey: lk.vkey, checkpointEveryMs: 50 } });
}

async function fill(storage: Storage, key: string, n: number): Promise<void> {
  const signer = createTraceSigner(key);
  const chain = signedChain(signer, n);
  const db = storage.pool;
  await registerTraceKey(db, { keyId: signer.keyId, publicKeyPem: signer.publicKeyPem, ephemeral: false, holder: 'test-fill' });
  await ensureChainHead(db, 'executions', GENESIS_HASH);
  for (let i = 0; i < n; i += 2000)
    await insertExecutions(
      db,
      chain.slice(i, i + 2000).map((r) => ({ ...r, idempotencyKey: null })),
    );
  await db.query(sql.unsafe`update chain_heads set seq = ${n}, hash = ${chain[n - 1]!.hash} where chain = 'executions'`);
}

/** An auditor over HTTP: the checkpoint (verified by the vkey the log publishes), then tiles. */
class Auditor {
  readonly fetched = new Map<string, Buffer>();
  readonly h: ExecutionHarness;
  constructor(h: ExecutionHarness) {
    this.h = h;
  }

  async get(url: string): Promise<{ status: number; body: Buffer; cache: string | undefined; text: string }> {
    const res = await this.h.app.inject({ method: 'GET', url });
    return { status: res.statusCode, body: res.rawPayload, cache: res.headers['cache-control'] as string | undefined, text: res.body };
  }

  /** Wait for a checkpoint of `size` (one follows within a second), verified with the published vkey. */
  async checkpoint(size: number): Promise<TrustedCheckpoint> {
    for (let i = 0; i < 600; i += 1) {
      const v = await this.get('/executions/log/vkey');
      const vkey = v.status === 200 ? parseVkey(v.text.trim()) : undefined;
      if (typeof vkey === 'string') throw new Error(`${vkey}: ${JSON.stringify(v.text)}`);
      const res = await this.get('/executions/log/checkpoint');
      expect(res.cache).toBe('no-store');
      if (res.status === 200 && vkey) {
        const cp = openCheckpoint(res.text, { log: ed25519NoteVerifier(vkey.name, vkey.publicKey), origin: ORIGIN });
        if (typeof cp === 'string') throw new Error(cp);
        if (cp.checkpoint.size === size) return cp;
      }
      await this.h.actors.log!.settled();
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`no checkpoint of size ${size}`);
  }

  /** The root of the tree of `size`, from the tiles it needs, each fetched over HTTP at the width that size gives it. */
  async rootFromTiles(size: number): Promise<Buffer> {
    const tiles = new Map<string, Buffer>();
    for (const t of tilesOfNodes(rangeNodes(0, size))) {
      const width = tileWidthAt(t.level, t.index, size);
      const url = `/executions/log/${tilePath({ level: t.level, index: t.index, width })}`;
      const res = await this.get(url);
      expect(res.status, url).toBe(200);
      expect(res.body.length).toBe(width * 32);
      expect(res.cache).toBe(width === 256 ? 'public, max-age=31536000, immutable' : 'no-store');
      if (width === 256) this.fetched.set(url, res.body);
      tiles.set(`${t.level}/${t.index}`, res.body);
    }
    return rangeHash(
      0,
      size,
      nodeReaderFromTiles((l, i) => tiles.get(`${l}/${i}`)),
    );
  }

  /** The full level-0 tiles of `size` (leaf hashes): each hashes to its entry in the level-1 tile. */
  async leafTiles(size: number): Promise<void> {
    const full = Math.floor(size / 256);
    if (full === 0) return;
    const upperUrl = `/executions/log/${tilePath({ level: 1, index: 0, width: Math.min(256, full) })}`;
    const upper = await this.get(upperUrl);
    if (full >= 256) this.fetched.set(upperUrl, upper.body);
    for (let i = 0; i < full; i += 1) {
      const url = `/executions/log/${tilePath({ level: 0, index: i, width: 256 })}`;
      const res = await this.get(url);
      expect(res.status, url).toBe(200);
      expect(res.cache).toBe('public, max-age=31536000, immutable');
      const hashes = Array.from({ length: 256 }, (_, k) => res.body.subarray(k * 32, k * 32 + 32));
      expect(perfectRoot(hashes).equals(upper.body.subarray(i * 32, i * 32 + 32)), url).toBe(true);
      this.fetched.set(url, res.body);
    }
  }

  /** Every full tile fetched so far answers the same bytes again. */
  async refetchFullTiles(): Promise<number> {
    for (const [url, body] of this.fetched) expect((await this.get(url)).body.equals(body), url).toBe(true);
    return this.fetched.size;
  }
}

describe.each(storageKinds())('the execution log over HTTP on $kind', ({ open }) => {
  const key = pem();
  let db: TestStorage;
  let h: ExecutionHarness;
  let auditor: Auditor;
  beforeAll(async () => {
    db = await open();
    h = await startLogHarness(db.storage, key);
    auditor = new Auditor(h);
  }, machineTimeout(60_000));
  afterAll(async () => {
    await h?.stop();
    await db?.dispose();
  });

  it('tiles fetched over HTTP rebuild the checkpoint root at sizes 1, 255, 256 and 257, and full tiles never change', async () => {
    let size = 0;
    const ids: string[] = [];
    for (const target of [1, 255, 256, 257]) {
      while (size < target) {
        const n = Math.min(50, target - size);
        const made = await Promise.all(Array.from({ length: n }, () => h.record(executionBody())));
        for (const m of made) ids.push(m.body.id);
        size += n;
      }
      const cp = await auditor.checkpoint(target);
      expect(await auditor.rootFromTiles(target)).toEqual(cp.checkpoint.root);
      await auditor.leafTiles(target);
    }
    expect(await auditor.refetchFullTiles()).toBeGreaterThan(0);
  });

  it('an inclusion proof and a consistency proof from the routes verify against the checkpoints', async () => {
    const cp = await auditor.checkpoint(257);
    const first = await h.app.inject({
      method: 'GET',
      url: '/executions/log/tile/entries/000.p/1',
      headers: { authorization: `Bearer ${await h.token(['execution:read'])}` },
    });
    expect(first.statusCode).toBe(200);
    const entry = first.rawPayload.subarray(2);
    const id = /"id":"(exec_[0-9a-f]{32})"/.exec(entry.toString())![1]!;
    const proof = await auditor.get(`/executions/${id}/proof?size=257`);
    const p = JSON.parse(proof.text) as { leafIndex: number; leafHash: string; proof: string[] };
    expect(p.leafIndex).toBe(0);
    expect(Buffer.from(p.leafHash, 'base64')).toEqual(leafHash(entry));
    expect(
      verifyInclusion(
        0,
        257,
        leafHash(entry),
        p.proof.map((x) => Buffer.from(x, 'base64')),
        cp.checkpoint.root,
      ),
    ).toBe(true);
    const c = JSON.parse((await auditor.get('/executions/log/consistency?from=255&to=257')).text) as { proof: string[] };
    const root255 = await auditor.rootFromTiles(255);
    expect(
      verifyConsistency(
        255,
        257,
        c.proof.map((x) => Buffer.from(x, 'base64')),
        root255,
        cp.checkpoint.root,
      ),
    ).toBe(true);
  });

  it('answers the proof and receipt of a leaf whose tile no proof node shares: leaf 0 at size 1, leaf 256 at size 257', async () => {
    await auditor.checkpoint(257);
    const read = { authorization: `Bearer ${await h.token(['execution:read'])}` };
    const idIn = async (bundle: string) => {
      const res = await h.app.inject({ method: 'GET', url: `/executions/log/tile/entries/${bundle}`, headers: read });
      return /"id":"(exec_[0-9a-f]{32})"/.exec(res.rawPayload.subarray(2).toString())![1]!;
    };
    const first = await auditor.get(`/executions/${await idIn('000.p/1')}/proof?size=1`);
    expect([first.status, (JSON.parse(first.text) as { proof: unknown[] }).proof]).toEqual([200, []]);
    const last = await h.app.inject({ method: 'GET', url: `/executions/${await idIn('001.p/1')}/receipt`, headers: read });
    expect(last.statusCode, last.body).toBe(200);
    expect(JSON.parse(last.body)).toMatchObject({ leafIndex: 256, treeSize: 257 });
  });

  it('bad tile paths and proof queries are 400 in the error shape; tiles beyond the tree are 404', async () => {
    for (const url of [
      '/executions/log/tile/0/01',
      '/executions/log/tile/0/000.p/0',
      '/executions/log/tile/64/000',
      '/executions/log/tile/0/x000/001',
      '/executions/log/consistency?from=0&to=3',
      '/executions/log/consistency?from=5&to=3',
      '/executions/log/consistency?from=1&to=999999',
      '/executions/log/consistency?from=a&to=2',
      `/executions/exec_${'0'.repeat(32)}/proof?size=-1`,
    ]) {
      const res = await auditor.get(url);
      expect(res.status, url).toBe(url.includes('proof') ? 400 : 400);
      expect(JSON.parse(res.text).error.code, url).toBe('INVALID_REQUEST');
    }
    // Numbers spelled other than in plain decimal digits are refused, never read as a guess (issue 31):
    // `from=1.5` was read as 1, `1e2` as 100, `0x1` as 1.
    for (const bad of ['1.5', '1e2', '0x1', '0x10', '+5', '05', '1e3', '', '%201']) {
      for (const url of [
        `/executions/log/consistency?from=${bad}&to=3`,
        `/executions/log/consistency?from=1&to=${bad}`,
        `/executions/exec_${'0'.repeat(32)}/proof?size=${bad}`,
      ]) {
        const res = await auditor.get(url);
        expect(res.status, url).toBe(400);
        expect(JSON.parse(res.text).error.message, url).toMatch(/^querystring\/(from|to|size) must be a whole number in plain decimal digits/);
      }
    }
    expect((await auditor.get('/executions/log/tile/0/999')).status).toBe(404);
    expect((await auditor.get('/executions/log/tile/entries/000')).status).toBe(401);
  });
});

describe.each(storageKinds().filter((k) => k.kind === 'postgres'))('a chain of 65,536 records made before the log on $kind', ({ open }) => {
  const key = pem();
  let db: TestStorage;
  let h: ExecutionHarness;
  let auditor: Auditor;
  beforeAll(async () => {
    db = await open();
    await fill(db.storage, key, 65_536);
    h = await startLogHarness(db.storage, key);
    auditor = new Auditor(h);
  }, machineTimeout(300_000));
  afterAll(async () => {
    await h?.stop();
    await db?.dispose();
  });

  it('is backfilled into the log; tiles over HTTP rebuild the root at 65,536 and 65,537, and full tiles are fetched again identical', {
    timeout: machineTimeout(300_000),
  }, async () => {
    const cp = await auditor.checkpoint(65_536);
    expect(await auditor.rootFromTiles(65_536)).toEqual(cp.checkpoint.root);
    expect((await h.record(executionBody())).status).toBe(201);
    const cp2 = await auditor.checkpoint(65_537);
    expect(await auditor.rootFromTiles(65_537)).toEqual(cp2.checkpoint.root);
    // Every level-0 tile, full, hashing to the level above; then all fetched once more: the same bytes.
    await auditor.leafTiles(65_537);
    expect(await auditor.refetchFullTiles()).toBeGreaterThanOrEqual(257);
  });
});
