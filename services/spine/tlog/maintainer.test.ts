import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageKinds, type TestStorage } from '../../../testing/storage.ts';
import { executionBody, startExecutionHarness, type ExecutionHarness } from '../../../testing/executions.ts';
import { executionsPageAfter } from '../../../storage/index.ts';
import { readCheckpoint, readLogState, readLogTiles } from './store.ts';
import {
  CompactTree,
  SIG_ED25519,
  formatVkey,
  ed25519NoteSigner,
  ed25519NoteVerifier,
  leafHash,
  nodeReaderFromTiles,
  openCheckpoint,
  rangeHash,
  rawEd25519PublicKey,
  tileWidthAt,
} from '../../../core/tlog/index.ts';
import { logEntry } from './index.ts';
import { machineTimeout } from '../../../testing/machine-time.ts';

const ORIGIN = 'suite.test/executions';
const key = generateKeyPairSync('ed25519').privateKey;
const verifier = ed25519NoteVerifier(ORIGIN, rawEd25519PublicKey(createPublicKey(key)));

describe.each(storageKinds())('the execution log kept by the chain writer on $kind', ({ open }) => {
  let db: TestStorage;
  let h: ExecutionHarness;
  beforeAll(async () => {
    db = await open();
    h = await startExecutionHarness({
      storage: db.storage,
      log: {
        origin: ORIGIN,
        signer: ed25519NoteSigner(ORIGIN, key),
        vkey: formatVkey(ORIGIN, SIG_ED25519, rawEd25519PublicKey(createPublicKey(key))),
        checkpointEveryMs: 50,
      },
    });
  }, machineTimeout(60_000));
  afterAll(async () => {
    await h?.stop();
    await db?.dispose();
  });

  it('records committed in concurrent batches become leaves, in order, with tiles that rebuild the root', async () => {
    for (let round = 0; round < 3; round += 1) {
      const answers = await Promise.all(Array.from({ length: 100 }, () => h.record(executionBody())));
      expect(answers.every((a) => a.status === 201)).toBe(true);
    }
    await h.actors.log!.settled();
    const records = await executionsPageAfter(db.storage.pool, 0, 1000);
    expect(records).toHaveLength(300);
    const expected = new CompactTree();
    for (const r of records) expected.append(leafHash(logEntry(r)));
    const state = await readLogState(db.storage.pool);
    expect(state?.size).toBe(300);
    expect(state?.root).toEqual(expected.root());

    const wanted = [
      { level: 0, index: 0 },
      { level: 0, index: 1 },
      { level: 1, index: 0 },
    ];
    const tiles = await readLogTiles(db.storage.pool, wanted);
    expect([tiles.get('0/0')?.length, tiles.get('0/1')?.length, tiles.get('1/0')?.length]).toEqual([256 * 32, 44 * 32, 32]);
    expect(tileWidthAt(0, 1, 300)).toBe(44);
    expect(
      rangeHash(
        0,
        300,
        nodeReaderFromTiles((l, i) => tiles.get(`${l}/${i}`)),
      ),
    ).toEqual(expected.root());
  });

  it('publishes a signed checkpoint of the tree once records stop arriving', async () => {
    let cp = await readCheckpoint(db.storage.pool);
    for (let i = 0; i < 200 && cp?.size !== 300; i += 1) {
      await h.actors.log!.settled();
      await new Promise((resolve) => setTimeout(resolve, 20));
      cp = await readCheckpoint(db.storage.pool);
    }
    const opened = openCheckpoint(cp!.note, { log: verifier, origin: ORIGIN });
    if (typeof opened === 'string') throw new Error(opened);
    expect(opened.checkpoint.size).toBe(300);
    expect(opened.checkpoint.root).toEqual((await readLogState(db.storage.pool))?.root);
  });

  it('a writer started again catches up with records the log has not seen, without rebuilding the rest', async () => {
    await h.restartWriter(undefined);
    const more = await Promise.all(Array.from({ length: 5 }, () => h.record(executionBody())));
    expect(more.every((a) => a.status === 201)).toBe(true);
    await h.actors.log!.settled();
    const records = await executionsPageAfter(db.storage.pool, 0, 1000);
    const expected = new CompactTree();
    for (const r of records) expected.append(leafHash(logEntry(r)));
    const state = await readLogState(db.storage.pool);
    expect(state?.size).toBe(305);
    expect(state?.root).toEqual(expected.root());
  });
});

describe.each(storageKinds())('the execution log under steady appends on $kind', ({ open }) => {
  let db: TestStorage;
  let h: ExecutionHarness;
  const CHECKPOINT_MS = 400;
  beforeAll(async () => {
    db = await open();
    h = await startExecutionHarness({
      storage: db.storage,
      log: {
        origin: ORIGIN,
        signer: ed25519NoteSigner(ORIGIN, key),
        vkey: formatVkey(ORIGIN, SIG_ED25519, rawEd25519PublicKey(createPublicKey(key))),
        checkpointEveryMs: CHECKPOINT_MS,
        integrateEveryMs: 20,
      },
    });
  }, machineTimeout(60_000));
  afterAll(async () => {
    await h?.stop();
    await db?.dispose();
  });

  it('integrates records arriving without pause in one round per checkpoint, not one per gathering window', async () => {
    const log = h.actors.log!;
    await log.settled();
    const before = log.rounds;
    const started = performance.now();
    let appended = 0;
    // Appends back to back for three checkpoint intervals: a 20 ms window alone would make dozens of rounds.
    while (performance.now() - started < 3 * CHECKPOINT_MS) {
      const answers = await Promise.all(Array.from({ length: 10 }, () => h.record(executionBody())));
      expect(answers.every((a) => a.status === 201)).toBe(true);
      appended += answers.length;
    }
    const elapsed = performance.now() - started;
    await log.settled();
    // One round per checkpoint due while appending, the first one right away (the log was quiet), one to settle.
    expect(log.rounds - before).toBeLessThanOrEqual(Math.ceil(elapsed / CHECKPOINT_MS) + 2);
    const records = await executionsPageAfter(db.storage.pool, 0, 10_000);
    expect(records).toHaveLength(appended);
    const expected = new CompactTree();
    for (const r of records) expected.append(leafHash(logEntry(r)));
    expect((await readLogState(db.storage.pool))?.root).toEqual(expected.root());
  });
});
