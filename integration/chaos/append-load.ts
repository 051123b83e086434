import type pg from 'pg';
import { expect } from 'vitest';
import { call } from '../helpers.ts';
import type { Ack } from '../../testing/append-load.ts';

/**
 * Every acknowledged record is stored exactly as acknowledged; no key made two records; the chain is
 * one gapless sequence (no fork), holds no record of this load that was not acknowledged, and verifies.
 */
export async function expectChainHoldsEveryAck(db: pg.Client, acks: readonly Ack[], edge: string, token: string): Promise<void> {
  const byKey = new Map<string, Ack>();
  for (const a of acks) {
    const seen = byKey.get(a.key);
    if (seen) expect(seen.id).toBe(a.id);
    byKey.set(a.key, a);
  }
  const stored = await db.query<{ id: string; seq: string; hash: string; idempotency_key: string }>(
    'select id, seq, hash, idempotency_key from executions where id = any($1)',
    [[...byKey.values()].map((a) => a.id)],
  );
  const storedById = new Map(stored.rows.map((r) => [r.id, r]));
  const lost = [...byKey.values()].filter((a) => {
    const row = storedById.get(a.id);
    return !row || Number(row.seq) !== a.seq || row.hash !== a.hash || row.idempotency_key !== a.key;
  });
  expect(lost).toEqual([]);
  const {
    rows: [shape],
  } = await db.query<{ n: string; lo: string; hi: string; keys: string }>(
    'select count(*) as n, min(seq) as lo, max(seq) as hi, count(distinct idempotency_key) as keys from executions',
  );
  expect(Number(shape!.lo)).toBe(1);
  expect(Number(shape!.hi)).toBe(Number(shape!.n));
  expect(Number(shape!.keys)).toBe(Number(shape!.n));
  const prefix = acks[0]?.key.replace(/-\d+$/, '-') ?? '';
  const {
    rows: [ours],
  } = await db.query<{ n: string }>('select count(*) as n from executions where starts_with(idempotency_key, $1)', [prefix]);
  expect(Number(ours!.n)).toBe(byKey.size);
  const verified = await call(`${edge}/executions-verify-chain`, { token, timeoutMs: 60_000 });
  expect(verified.body).toMatchObject({ valid: true, checked: Number(shape!.n) });
}
