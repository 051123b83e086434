import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startLocalCluster, type LocalCluster } from '../compose/local-cluster.ts';
import { ACTORS, call, mint, printOutputOnFailure } from './helpers.ts';

/**
 * Two chain-writer processes on one Postgres, appends through two edge processes (issue 3, "Race"):
 * exactly one writer leads, and however the appends interleave the execution chain never forks and
 * its sequence has no gap. Every acknowledged record is in the chain, which verifies.
 */
vi.setConfig({ testTimeout: 120_000, hookTimeout: 90_000 });

const APPENDS = 10_000;
const CONCURRENCY = 50;
let cluster: LocalCluster;

beforeAll(async () => {
  cluster = await startLocalCluster({
    processes: [
      { name: 'actors-a', roles: ACTORS },
      { name: 'actors-b', roles: ACTORS },
      { name: 'token-1', roles: ['edge:token'] },
      { name: 'token-2', roles: ['edge:token'] },
    ],
    stalenessMs: 3000,
  });
});
afterAll(async () => {
  await cluster?.stop();
});
printOutputOnFailure(() => cluster?.output() ?? '');

describe('two chain writers and two edges under concurrent appends', () => {
  test(`${APPENDS} concurrent appends leave one gapless, unforked, verifying chain`, async () => {
    const edges = ['token-1', 'token-2'].map((n) => cluster.process(n).url('token'));
    const { token } = await mint(edges[0]!, cluster.adminKey, 'racer', ['execution:record', 'execution:read']);
    const acknowledged: Array<{ id: string; seq: number }> = [];
    const failures: string[] = [];
    let next = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < APPENDS) {
          const i = next++;
          const a = await call(`${edges[i % 2]}/executions`, {
            token,
            timeoutMs: 30_000,
            body: { subject: 'racer', scope: ['crm:write'], module: 'crm', action: 'update', input: { i }, outcome: 'success' },
          });
          if (a.status === 201) acknowledged.push(a.body as { id: string; seq: number });
          else failures.push(`${a.status} ${a.code ?? ''}`);
        }
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `chain race: ${acknowledged.length} acknowledged of ${APPENDS} in ${seconds.toFixed(1)} s (${Math.round(acknowledged.length / seconds)}/s); failures: ${failures.length}`,
    );
    expect(failures).toEqual([]);
    const seqs = acknowledged.map((r) => r.seq).sort((x, y) => x - y);
    expect(new Set(seqs).size).toBe(APPENDS);
    expect(seqs[0]).toBe(1);
    expect(seqs[seqs.length - 1]).toBe(APPENDS);
    const verified = await call(`${edges[1]}/executions-verify-chain`, { token, timeoutMs: 60_000 });
    expect(verified.body).toMatchObject({ valid: true, checked: APPENDS });
  });
});
