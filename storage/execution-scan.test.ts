import fc from 'fast-check';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionRecord } from '../core/chain/index.ts';
import { storageKinds, type TestStorage } from '../testing/storage.ts';
import {
  executionsPageAfter,
  executionsRangeJson,
  insertExecutions,
  jsonRows,
  openScanClient,
  registerTraceKey,
  scanExecutionRange,
  scannedExecution,
  traceKeyIds,
  type ScannedRow,
} from './index.ts';
import { machineTimeout } from '../testing/machine-time.ts';

// Text Postgres stores (no NUL), with what JSON and the array literal escape, line breaks included.
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }).filter((s) => !s.includes('\u0000')),
  fc.constantFrom('', 'a"b', 'c\\d', 'line\nbreak\r\n', '\t{x,y}', 'NULL', '\u2028', 'é😀'),
);
// Numbers as jsonb keeps them: exact decimals that must read back as the same doubles.
const num = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.constantFrom(0.1, 1e21, 1.5e-7, 2 ** 53 + 2, 1.5000001));
const value = fc.oneof(text, num, fc.boolean(), fc.constant(null), fc.array(text, { maxLength: 3 }));
const jsonb = fc.oneof(fc.constant(null), fc.dictionary(text, value, { maxKeys: 4 }), fc.array(value, { maxLength: 3 }), text);

const record = (seq: number) =>
  fc
    .record({
      id: text,
      timestamp: text,
      subject: text,
      module: text,
      action: text,
      outcome: text,
      inputHash: text,
      outputHash: fc.option(text, { nil: null }),
      prevHash: text,
      keyId: text,
      hash: text,
      signature: text,
      scope: fc.array(text, { maxLength: 4 }),
      cost: jsonb,
      governance: jsonb,
      attested: fc.dictionary(text, value, { maxKeys: 4 }),
    })
    .map((r) => ({ ...r, seq, id: `${seq}:${r.id}`, prevHash: `${seq}:${r.prevHash}`, hash: `${seq}:${r.hash}` }) as unknown as ExecutionRecord);

const N = 60;

/** A storage (opened before the tests of the block) holding records 1 to N of arbitrary values. */
function storageWithRecords(open: () => Promise<TestStorage>): { t: TestStorage } {
  const held = {} as { t: TestStorage };
  beforeAll(async () => {
    held.t = await open();
    const stored = fc.sample(fc.tuple(...Array.from({ length: N }, (_, i) => record(i + 1))), { numRuns: 1, seed: 42 })[0] as ExecutionRecord[];
    await insertExecutions(
      held.t.storage.pool,
      stored.map((r) => ({ ...r, idempotencyKey: null })),
    );
  }, machineTimeout(60_000));
  afterAll(() => held.t?.dispose());
  return held;
}

/** Records `from` to `to` as the record reads (storage/executions.ts) give them. */
const asRead = (t: TestStorage, from: number, to: number) => executionsPageAfter(t.storage.pool, from - 1, to - from + 1);

describe.each(storageKinds())('chain scans for verification on $kind', ({ open }) => {
  const held = storageWithRecords(open);

  it('reads every stored column of a range as a JSON text exactly as the record reads give them, line breaks and all', async () => {
    for (const [from, to] of [
      [1, N],
      [1, 1],
      [17, 33],
      [N, N],
    ] as const) {
      const rows = [...jsonRows(await executionsRangeJson(held.t.storage.pool, from, to))];
      expect(rows.map(scannedExecution)).toEqual(await asRead(held.t, from, to));
    }
    expect(await executionsRangeJson(held.t.storage.pool, N + 1, N + 500)).toBe('');
  });

  it('reads values edited in the database into shapes the format never writes, for the verifier to report', async () => {
    await held.t.storage.pool.query(sql.unsafe`update executions set cost = '[1, "two", {"b": 1e400}]', attested = '"text"' where seq = 5`);
    const [row] = [...jsonRows(await executionsRangeJson(held.t.storage.pool, 5, 5))];
    expect(scannedExecution(row as ScannedRow)).toEqual((await asRead(held.t, 5, 5))[0]);
  });

  it('lists every published key id', async () => {
    await registerTraceKey(held.t.storage.pool, { keyId: 'ed25519-aaaa', publicKeyPem: 'pem-a', ephemeral: false, holder: 'h' });
    await registerTraceKey(held.t.storage.pool, { keyId: 'ed25519-bbbb', publicKeyPem: 'pem-b', ephemeral: true, holder: 'h' });
    expect(await traceKeyIds(held.t.storage.pool)).toEqual(['ed25519-aaaa', 'ed25519-bbbb']);
  });
});

describe.each(storageKinds().filter((k) => k.kind === 'postgres'))('chain scans of verification threads on $kind', ({ open }) => {
  const held = storageWithRecords(open);

  it('reads a range over a connection of its own, row by row, exactly as the record reads give them', async () => {
    const client = await openScanClient(held.t.storage.pool.configuration.connectionUri);
    try {
      for (const [from, to] of [
        [1, N],
        [20, 20],
        [N + 1, N + 9],
      ] as const) {
        const rows: ScannedRow[] = [];
        await scanExecutionRange(client, from, to, (row) => rows.push(row));
        expect(rows.map(scannedExecution)).toEqual(await asRead(held.t, from, Math.min(to, N)));
      }
    } finally {
      await client.end();
    }
  });
});
