/**
 * The execution log's costs (docs/PERFORMANCE.md, "The transparency log"):
 *
 * 1. appends per second through the execution writer on the bus, with the log's tree maintained
 *    and without, in alternating phases of the same run (same process, database and machine load),
 *    with the process's CPU per append beside each rate;
 * 2. inclusion proof generation at 1,000,000 leaves: the reader's own path (its TileNodeCache, one
 *    query for the tiles holding nodes not kept, then the proof), then the uncached path, p50/p99
 *    over random leaves, on a tree whose tiles are
 *    written by the maintainer's storage function from synthetic leaf hashes (a real chain of a
 *    million signed records would take most of the run to fill; the proof reads only tiles);
 * 3. receipt verification (pure, offline) per receipt;
 * 4. bytes an auditor downloads to check one record at 1M records: a receipt, or the tiles, against
 *    the full export.
 *
 *   node bench/tlog.ts [--seconds 5] [--rounds 2] [--leaves 1000000] [--proofs 2000] [--embedded]
 *
 * The appends run on the local Postgres server (SUITE_TEST_DATABASE_URL), or with --embedded on the
 * suite's own Postgres on a new data folder (the default a user runs), whose processes are children
 * of this one: the CPU per append is then given for this process and for its whole tree. The proof
 * figures use the local server; --leaves 0 skips them.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { cpuUntilIdle, treeCpuSeconds, waitIdle } from './cpu.ts';
import { createBus, createMemoryNetwork, subjects } from '../bus/index.ts';
import { createTraceSigner } from '../core/chain/index.ts';
import {
  CompactTree,
  TileNodeCache,
  TILE_HEIGHT,
  TILE_WIDTH,
  formatCheckpoint,
  inclusionProof,
  leafHash,
  signNote,
  verifyReceipt,
  logKey,
  nodeReaderFromTiles,
  nodesRead,
  rangeNodes,
  tilesOfNodes,
  tileWidthAt,
  type NodeReader,
} from '../core/tlog/index.ts';
import { startExecutionActors } from '../services/spine/executions/index.ts';
import { logEntry } from '../services/spine/tlog/index.ts';
import { signedChain } from '../testing/trace-format.ts';
import { openStorage, type Storage } from '../storage/index.ts';
import { advanceLog, readLogTiles } from '../services/spine/tlog/store.ts';
import { createTestDatabase, type TestDatabase } from '../testing/storage.ts';
import { hashCanonical } from '../core/chain/index.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '2' },
    leaves: { type: 'string', default: '1000000' },
    proofs: { type: 'string', default: '2000' },
    embedded: { type: 'boolean', default: false },
  },
});
const EMBEDDED = values.embedded;
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const LEAVES = Number(values.leaves);
const PROOFS = Number(values.proofs);
const ORIGIN = 'bench.local/executions/log';

async function appendPhase(
  storage: Storage,
  withLog: boolean,
): Promise<{ perSec: number; cpuUsPerAppend: number; treeCpuUsPerAppend: number; integrated: number | undefined; rounds: number | undefined }> {
  const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const lk = logKey(ORIGIN, createPrivateKey(pem));
  const bus = createBus(createMemoryNetwork().connect());
  const actors = await startExecutionActors({
    bus,
    storage,
    signer: createTraceSigner(pem),
    holder: `bench-${randomBytes(4).toString('hex')}`,
    roles: { writer: true, reader: false },
    ...(withLog ? { log: { origin: ORIGIN, signer: lk.signer, vkey: lk.vkey } } : {}),
  });
  // A new log catches up with the records of the phases without it first: not counted here.
  await actors.log?.settled();
  const rounds0 = actors.log?.rounds ?? 0;
  await waitIdle(process.pid, 15_000);
  let done = 0;
  const until = performance.now() + SECONDS * 1000;
  const tree0 = await treeCpuSeconds(process.pid);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  // 64 callers in flight: group commit fills batches, as under HTTP load.
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (performance.now() < until) {
        const r = await bus.request(subjects.executionsRecord, executionClaimFor(done));
        if (!r.ok) throw new Error(r.error.message);
        done += 1;
      }
    }),
  );
  // The log's work counts too: wait until it has integrated what was appended.
  await actors.log?.settled();
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  // What the phase left the database to do (WAL writer, checkpointer, autovacuum) is charged to it.
  await cpuUntilIdle(process.pid, 15_000);
  const treeCpu = (await treeCpuSeconds(process.pid)) - tree0;
  const integrated = actors.log?.size;
  const rounds = actors.log ? actors.log.rounds - rounds0 : undefined;
  await actors.stop();
  await bus.drain();
  return { perSec: done / seconds, cpuUsPerAppend: (cpu.user + cpu.system) / done, treeCpuUsPerAppend: (treeCpu * 1e6) / done, integrated, rounds };
}

/** Tiles of a tree of `n` synthetic leaves, written with the maintainer's storage function, 64k leaves a transaction. */
async function synthesiseTree(storage: Storage, n: number, first: Buffer): Promise<Buffer> {
  const tree = new CompactTree();
  const edge = new Map<number, { index: number; hashes: Buffer[] }>();
  for (let from = 0; from < n; from += 65_536) {
    const size = tree.size;
    const tiles: Array<{ level: number; index: number; hashes: Buffer }> = [];
    const touched = new Set<number>();
    for (let i = from; i < Math.min(n, from + 65_536); i += 1) {
      for (const node of tree.append(i === 0 ? first : randomBytes(32))) {
        if (node.height % TILE_HEIGHT !== 0) continue;
        const level = node.height / TILE_HEIGHT;
        const index = Math.floor(node.index / TILE_WIDTH);
        let t = edge.get(level);
        if (t && t.index !== index && touched.has(level)) tiles.push({ level, index: t.index, hashes: Buffer.concat(t.hashes) });
        if (!t || t.index !== index) {
          t = { index, hashes: [] };
          edge.set(level, t);
        }
        t.hashes.push(node.hash);
        touched.add(level);
      }
    }
    for (const level of touched) {
      const t = edge.get(level)!;
      tiles.push({ level, index: t.index, hashes: Buffer.concat(t.hashes) });
    }
    await storage.pool.transaction((tx) => advanceLog(tx, size, { size: tree.size, root: tree.root(), peaks: Buffer.concat(tree.peaks) }, tiles));
  }
  return tree.root();
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
}

async function main(): Promise<void> {
  // --embedded: the default a user runs, the suite's own Postgres on a new data folder (its
  // processes are children of this one, so the tree's CPU counts the database's work too).
  const folder = EMBEDDED ? await mkdtemp(join(tmpdir(), 'suite-bench-tlog-')) : undefined;
  const db = folder ? undefined : await createTestDatabase();
  const storage = folder ? await openStorage({ dbPath: join(folder, 'data') }) : await openStorage({ databaseUrl: (db as TestDatabase).url, poolSize: 8 });
  try {
    const rows: string[] = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      for (const withLog of round % 2 === 1 ? [false, true] : [true, false]) {
        const r = await appendPhase(storage, withLog);
        rows.push(
          `appends ${withLog ? 'with the log   ' : 'without the log'} round ${round}: ${r.perSec.toFixed(0)}/s, ${r.cpuUsPerAppend.toFixed(0)} µs CPU per append in this process, ${r.treeCpuUsPerAppend.toFixed(0)} µs in its process tree${r.integrated !== undefined ? ` (tree at ${r.integrated}, ${r.rounds} rounds)` : ''}`,
        );
        console.log(rows[rows.length - 1]);
      }
    }

    if (LEAVES === 0) return;
    // A separate database for the synthetic tree (the append phases' log is in this one).
    const db2 = await createTestDatabase();
    const s2 = await openStorage({ databaseUrl: db2.url, poolSize: 4 });
    // Leaf 0 is a real signed record's entry, for the receipt below.
    const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const signer = createTraceSigner(pem);
    const [record] = signedChain(signer, 1);
    const entry = logEntry(record!);
    const t0 = performance.now();
    const root = await synthesiseTree(s2, LEAVES, leafHash(entry));
    console.log(`tree of ${LEAVES} leaves written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    // The reader's path (ExecutionLogReaderActor): its node cache, one query for the tiles holding
    // nodes it has not kept, from a cold cache. Then, for comparison, every tile a proof needs queried
    // and its nodes rebuilt each time (the path before the cache). One after the other, not
    // alternating: each path's CPU figure must not carry the other's garbage collection.
    const cache = new TileNodeCache();
    let queried = false;
    let queries = 0;
    const withoutQuery: number[] = [];
    const paths = {
      cached: async (leaf: number) => {
        const build = (r: NodeReader) => inclusionProof(leaf, LEAVES, r);
        queried = false;
        return build(
          await cache.reader(build, (t) => {
            queried = true;
            queries += 1;
            return readLogTiles(s2.pool, t);
          }),
        );
      },
      uncached: async (leaf: number) => {
        const tiles = await readLogTiles(s2.pool, tilesOfNodes(nodesRead((r) => inclusionProof(leaf, LEAVES, r))));
        return inclusionProof(
          leaf,
          LEAVES,
          nodeReaderFromTiles((l, x) => tiles.get(`${l}/${x}`)),
        );
      },
    };
    const times = { cached: [] as number[], uncached: [] as number[] };
    const cpuOf = { cached: 0, uncached: 0 };
    for (let i = 0; i < 2 * PROOFS; i += 1) {
      const path = i < PROOFS ? 'cached' : 'uncached';
      const leaf = Math.floor(Math.random() * LEAVES);
      const c0 = process.cpuUsage();
      const s = performance.now();
      await paths[path](leaf);
      times[path].push(performance.now() - s);
      if (path === 'cached' && !queried) withoutQuery.push(performance.now() - s);
      const c = process.cpuUsage(c0);
      cpuOf[path] += c.user + c.system;
    }
    for (const path of ['cached', 'uncached'] as const) {
      const t = times[path].sort((a, b) => a - b);
      console.log(
        `inclusion proof at ${LEAVES} leaves, ${path === 'cached' ? "the reader's path (node cache, a query for tiles not kept)" : 'every tile queried and rebuilt (no cache)'}, ${PROOFS} random leaves from a cold start: p50 ${percentile(t, 0.5).toFixed(2)} ms, p99 ${percentile(t, 0.99).toFixed(2)} ms, max ${t[t.length - 1]!.toFixed(2)} ms; ${(cpuOf[path] / PROOFS).toFixed(0)} µs CPU of this process per proof`,
      );
    }
    withoutQuery.sort((a, b) => a - b);
    console.log(
      `  of the reader's ${PROOFS}: ${queries} queried a tile (${PROOFS - queries} answered from the cache alone: p50 ${percentile(withoutQuery, 0.5)?.toFixed(2)} ms, p99 ${percentile(withoutQuery, 0.99)?.toFixed(2)} ms)`,
    );
    const tileBytes = tilesOfNodes(nodesRead((r) => inclusionProof(LEAVES - 1, LEAVES, r))).length;
    const needed = tilesOfNodes([...nodesRead((r) => inclusionProof(123_456, LEAVES, r)), ...rangeNodes(0, LEAVES)]);
    const bytes = needed.reduce((sum, t) => sum + tileWidthAt(t.level, t.index, LEAVES) * 32, 0);
    console.log(
      `tiles an auditor fetches to check one leaf and the root at ${LEAVES}: ${needed.length} tiles, ${bytes} bytes (${tileBytes} tiles for the last leaf's proof)`,
    );
    // A receipt for leaf 0 under a signed checkpoint of the 1M-leaf tree, verified offline.
    const tiles0 = await readLogTiles(s2.pool, tilesOfNodes(nodesRead((r) => inclusionProof(0, LEAVES, r))));
    const proof = inclusionProof(
      0,
      LEAVES,
      nodeReaderFromTiles((l, x) => tiles0.get(`${l}/${x}`)),
    );
    const lk = logKey(ORIGIN, createPrivateKey(pem));
    const receipt = {
      format: 'execution-receipt/v1' as const,
      record: record!,
      entry: entry.toString(),
      leafIndex: 0,
      treeSize: LEAVES,
      proof: proof.map((p) => p.toString('base64')),
      checkpoint: signNote(formatCheckpoint({ origin: ORIGIN, size: LEAVES, root, extensions: [] }), [lk.signer]),
    };
    const key = createPublicKey(signer.publicKeyPem);
    const policy = { log: lk.verifier, origin: ORIGIN };
    const v0 = performance.now();
    for (let i = 0; i < 1000; i += 1) if (!verifyReceipt(receipt, () => key, policy).ok) throw new Error('receipt did not verify');
    const receiptBytes = Buffer.byteLength(JSON.stringify(receipt));
    console.log(
      `receipt verification (offline, pure): ${(((performance.now() - v0) / 1000) * 1000).toFixed(0)} µs per receipt; receipt ${receiptBytes} bytes (${proof.length} proof hashes)`,
    );
    const exportBytes = (entry.length + 1) * LEAVES;
    console.log(
      `bytes to check one record at ${LEAVES}: receipt ${receiptBytes} + vkey ~90 + public key ~113; full export ~${(exportBytes / 1e6).toFixed(0)} MB (${entry.length + 1} bytes a line)`,
    );
    await s2.close();
    await db2.drop();
  } finally {
    await storage.close();
    await db?.drop();
    if (folder) await rm(folder, { recursive: true, force: true });
  }
}

/** A record request as the edge sends it for POST /executions. */
function executionClaimFor(n: number) {
  return {
    claim: {
      subject: 'bench-agent',
      scope: ['crm:write'],
      module: 'crm',
      action: 'update-contact',
      outcome: 'success',
      inputHash: hashCanonical({ n }),
      outputHash: null,
      cost: null,
      governance: null,
    },
    attested: { jti: null, sub: 'bench-agent', scope: ['execution:record'], proven: false, tenantId: null },
    timestamp: new Date().toISOString(),
  };
}

await main();
