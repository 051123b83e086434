import pg from 'pg';
import { expect } from 'vitest';
import { checkpointPolicyOf, logPaths } from '../core/tlog/index.ts';
import { describeFsck, fsckServedLog } from '../cli/verify-log-served.ts';

/**
 * The chaos tests' last check (issue 35 item 8): after the faults, the transparency log served by
 * the suite passes `suite verify --log`'s fsck: the root rebuilt from its tiles is the signed
 * checkpoint's, its size is the chain's head, its entries are the chain's records, and every
 * checkpoint published before and during the faults is a prefix of it (consistency proofs verify).
 * Tests only.
 */
export interface LogIntactOptions {
  /** The token listener's base URL. */
  base: string;
  /** A token with execution:read (not a tenant's). */
  token: string;
  /**
   * The suite's database: every checkpoint stored there (each signed when it was published) is
   * checked as an earlier one, so those the faults' writers published count too. Without it only
   * the checkpoint the log serves now is checked.
   */
  databaseUrl?: string;
  /** Signed checkpoints kept before the faults (servedCheckpoint), where no database is at hand. */
  since?: readonly string[];
  /** Most earlier checkpoints to fetch a consistency proof for (spread from the first to the last; default 12). */
  proofs?: number;
}

export async function expectLogIntact(o: LogIntactOptions): Promise<void> {
  const vkeyAnswer = await fetch(`${o.base}${logPaths.vkey}`, { signal: AbortSignal.timeout(30_000) });
  const vkey = await vkeyAnswer.text();
  expect(vkeyAnswer.status, vkey).toBe(200);
  const policy = checkpointPolicyOf({ logVkey: vkey });
  if (typeof policy === 'string') throw new Error(`the log's vkey: ${policy}`);
  const since = [...(o.since ?? []), ...(o.databaseUrl !== undefined ? spread(await storedCheckpoints(o.databaseUrl), o.proofs ?? 12) : [])];
  // The load has stopped: the log catches up with the chain within seconds (a checkpoint a second).
  const result = await fsckServedLog({ base: o.base, policy, token: o.token, since, waitMs: 30_000, timeoutMs: 60_000 });
  process.stdout.write(`log fsck: ${describeFsck(result).trimEnd().replaceAll('\n', '; ')}\n`);
  expect(result.report.problems).toEqual([]);
  expect(result.chainHead?.before).toBe(result.report.size);
  expect(result.report.consistentWith).toHaveLength(since.length);
}

/** The checkpoint the log serves now (signed note), once it has one: keep it to check the log extends it later. */
export async function servedCheckpoint(base: string): Promise<string> {
  for (;;) {
    const res = await fetch(`${base}${logPaths.checkpoint}`, { signal: AbortSignal.timeout(30_000) });
    const text = await res.text();
    if (res.status === 200 && !text.startsWith(`${text.split('\n')[0]}\n0\n`)) return text;
    // None yet, or the empty tree: a checkpoint follows a commit within a second.
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function storedCheckpoints(url: string): Promise<string[]> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const { rows } = await db.query<{ note: string }>('select coalesce(cosigned, note) as note from execution_log_checkpoints order by size');
    return rows.map((r) => r.note);
  } finally {
    await db.end();
  }
}

/** At most n of the items, the first and the last among them, evenly spaced. */
function spread<T>(items: readonly T[], n: number): T[] {
  if (items.length <= n) return [...items];
  return Array.from({ length: n }, (_, i) => items[Math.round((i * (items.length - 1)) / (n - 1))] as T);
}
