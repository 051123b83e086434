import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageKinds, type TestStorage } from '../../../testing/storage.ts';
import { executionBody, startExecutionHarness, type ExecutionHarness } from '../../../testing/executions.ts';
import { executionsPageAfter } from '../../../storage/index.ts';
import { advanceLog, readLogState, readLogTiles } from './store.ts';
import {
  CompactTree,
  EMPTY_ROOT,
  SIG_ED25519,
  consistencyProof,
  ed25519NoteSigner,
  formatVkey,
  fsckLog,
  leafHash,
  nodeReaderFromTiles,
  rawEd25519PublicKey,
  type LogSource,
} from '../../../core/tlog/index.ts';
import { ExecutionLogMaintainer, logEntry } from './index.ts';
import { machineTimeout } from '../../../testing/machine-time.ts';

/**
 * Two maintainers racing on advanceLog (issue 35 item 8): during a failover the writer that lost the
 * lead may still be integrating when the new leader resumes. The stored size fences them: every
 * advance starts from the size it read, a late one writes nothing and reloads, and the tree left
 * behind is the chain's, tile for tile.
 */
const ORIGIN = 'suite.test/executions';
const key = generateKeyPairSync('ed25519').privateKey;
const RECORDS = 700;

/** The stored tiles as a log source, for the fsck. */
function storedSource(db: TestStorage): LogSource {
  const read = async (level: number, index: number) => (await readLogTiles(db.storage.pool, [{ level, index }])).get(`${level}/${index}`);
  return {
    async tile(ref) {
      const t = await read(ref.level as number, ref.index);
      if (!t || t.length < ref.width * 32) throw new Error(`tile ${ref.level}/${ref.index} missing or short`);
      return t.subarray(0, ref.width * 32);
    },
    async consistency(from, to) {
      const tiles = await readLogTiles(
        db.storage.pool,
        [0, 1, 2, 3].flatMap((level) => [0, 1, 2, 3].map((index) => ({ level, index }))),
      );
      return consistencyProof(
        from,
        to,
        nodeReaderFromTiles((l, i) => tiles.get(`${l}/${i}`)),
      );
    },
  };
}

describe.each(storageKinds())('two log maintainers racing on $kind', ({ open }) => {
  let db: TestStorage;
  let h: ExecutionHarness;
  beforeAll(async () => {
    db = await open();
    // The chain without a log: both maintainers below catch up with it from nothing.
    h = await startExecutionHarness({ storage: db.storage });
    for (let done = 0; done < RECORDS; done += 50) {
      const answers = await Promise.all(Array.from({ length: 50 }, () => h.record(executionBody())));
      expect(answers.every((a) => a.status === 201)).toBe(true);
    }
  }, machineTimeout(120_000));
  afterAll(async () => {
    await h?.stop();
    await db?.dispose();
  });

  it('two advances from the same stored size: one moves the tree, the other writes nothing, even from the empty tree', async () => {
    const records = await executionsPageAfter(db.storage.pool, 0, 300);
    const treeOf = (n: number) => {
      const t = new CompactTree();
      for (const r of records.slice(0, n)) t.append(leafHash(logEntry(r)));
      return { size: t.size, root: t.root(), peaks: Buffer.concat(t.peaks) };
    };
    // Both from 0 (no state row yet), with different sizes: were both let through, the smaller
    // could land last and move the stored tree backwards.
    const results = await Promise.all([100, 200].map((n) => db.storage.pool.transaction((tx) => advanceLog(tx, 0, treeOf(n), []))));
    expect(results.filter(Boolean)).toHaveLength(1);
    const state = await readLogState(db.storage.pool);
    expect(state?.size).toBe(results[0] ? 100 : 200);
    // Back to the empty tree for the next test (a real writer never moves it backwards).
    await db.storage.pool.transaction((tx) => advanceLog(tx, state!.size, { size: 0, root: EMPTY_ROOT, peaks: Buffer.alloc(0) }, []));
  });

  it("two maintainers catching up with the chain at once leave the chain's tree, its tiles and a checkpoint that pass the fsck", async () => {
    const maintainers = [0, 1].map(
      () =>
        new ExecutionLogMaintainer({
          storage: db.storage,
          origin: ORIGIN,
          signer: ed25519NoteSigner(ORIGIN, key),
          vkey: formatVkey(ORIGIN, SIG_ED25519, rawEd25519PublicKey(createPublicKey(key))),
          // Small pages: many advances each, so that the two interleave.
          backfillPage: 37,
          checkpointEveryMs: 10_000,
        }),
    );
    try {
      await Promise.all(maintainers.map((m) => m.resume()));
      await Promise.all(maintainers.map((m) => m.settled()));
    } finally {
      await Promise.all(maintainers.map((m) => m.pause()));
    }
    const records = await executionsPageAfter(db.storage.pool, 0, RECORDS + 1);
    expect(records).toHaveLength(RECORDS);
    const expected = new CompactTree();
    const roots = new Map<number, Buffer>();
    for (const r of records) {
      expected.append(leafHash(logEntry(r)));
      roots.set(expected.size, expected.root());
    }
    const state = await readLogState(db.storage.pool);
    expect(state?.size).toBe(RECORDS);
    expect(state?.root).toEqual(expected.root());
    const checkpoint = { origin: ORIGIN, size: RECORDS, root: expected.root(), extensions: [] };
    const report = await fsckLog({
      checkpoint,
      chainHead: RECORDS,
      source: storedSource(db),
      earlier: [37, 256, 333].map((n) => ({ origin: ORIGIN, size: n, root: roots.get(n) as Buffer, extensions: [] })),
    });
    expect(report.problems).toEqual([]);
    expect(report.tiles).toBe(3 + 1);
  });
});
