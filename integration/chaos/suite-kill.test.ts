import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { Child, inherited, listenerPorts, waitFor, zeroPorts } from '../../compose/local-cluster.ts';
import { SERVICES } from '../../config/index.ts';
import { call, mint, printOutputOnFailure } from '../helpers.ts';
import { startAppendLoad, type Ack } from '../../testing/append-load.ts';
import { expectLogIntact, servedCheckpoint } from '../../testing/log-fsck.ts';

/**
 * The embedded default (`suite start --data-dir`, one process and its own Postgres) killed with
 * SIGKILL under append load, three times (issue 25 part 9). The whole process group is killed, the
 * suite's database server with it, as an OOM kill or a power cut of the container would. After each
 * restart on the same data folder, clients retry with the same Idempotency-Key until answered.
 * Afterwards: every acknowledged record is there as acknowledged (0 lost), each key made one record
 * (0 duplicates), and the chain of all of them verifies (0 forks, no gap).
 */
vi.setConfig({ testTimeout: 240_000, hookTimeout: 60_000 });

const KILLS = 3;
const ACKS_BETWEEN_KILLS = 150;
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const children: Child[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(children.map((c) => c.stop(10_000)));
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 })));
});
printOutputOnFailure(() => children.map((c) => c.output()).join('\n'));

/** Starts the embedded suite on `dataDir`; resolves with its token listener once /ready answers 200. */
async function startEmbedded(dataDir: string, run: number): Promise<{ child: Child; edge: string }> {
  const child = new Child({
    name: `suite-${run}`,
    args: ['cli/suite.ts', 'start', '--data-dir', dataDir],
    cwd: REPO_ROOT,
    env: { ...inherited(), SUITE_LOG_LEVEL: 'warn', ...zeroPorts() },
  });
  children.push(child);
  const { token } = await listenerPorts(child, SERVICES);
  const edge = `http://127.0.0.1:${token}`;
  await waitFor(async () => (await call(`${edge}/ready`, { timeoutMs: 2000 })).status === 200, {
    timeoutMs: 60_000,
    abort: () => (child.running ? undefined : `the suite exited before it was ready:\n${child.output()}`),
    describe: () => `the suite was not ready after 60 s:\n${child.output()}`,
  });
  return { child, edge };
}

describe('the embedded suite killed under load', () => {
  test(`${KILLS} SIGKILLs of the suite and its database lose no acknowledged append, duplicate none, and leave one verifying chain`, async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'suite-kill-')), 'data');
    dirs.push(dirname(dataDir));
    let current = await startEmbedded(dataDir, 0);
    const { adminKey } = JSON.parse(await readFile(join(dataDir, 'secrets.json'), 'utf8')) as { adminKey: string };
    // The signing secret is kept in the data folder: the token stays valid across restarts.
    const { token } = await mint(current.edge, adminKey, 'crash-agent', ['execution:record', 'execution:read']);
    const load = startAppendLoad({ edge: () => current.edge, token, keyPrefix: 'suite-kill', workers: 8, giveUpMs: 120_000 });
    const downMs: number[] = [];
    const logBefore = await servedCheckpoint(current.edge);
    for (let k = 1; k <= KILLS; k++) {
      await load.acknowledged(load.acks.length + ACKS_BETWEEN_KILLS);
      const killedAt = Date.now();
      current.child.signal('SIGKILL');
      await current.child.exited();
      current = await startEmbedded(dataDir, k);
      await load.acknowledged(load.acks.length + 1);
      downMs.push(Date.now() - killedAt);
    }
    await load.acknowledged(load.acks.length + ACKS_BETWEEN_KILLS);
    await load.stop();

    // Each key acknowledged as one record only, stored as acknowledged.
    const byKey = new Map<string, Ack>();
    for (const a of load.acks) {
      const seen = byKey.get(a.key);
      if (seen) expect(seen.id).toBe(a.id);
      byKey.set(a.key, a);
    }
    const lost: string[] = [];
    for (const a of byKey.values()) {
      const got = await call(`${current.edge}/executions/${a.id}`, { token });
      const r = got.body as { seq?: number; hash?: string };
      if (got.status !== 200 || r.seq !== a.seq || r.hash !== a.hash) lost.push(`${a.key}: ${got.status} ${JSON.stringify(r).slice(0, 120)}`);
    }
    // Every key the clients sent was acknowledged in the end (they retried until it was), so the
    // chain holds exactly one record per key: as many records as keys, verifying from seq 1 on.
    const verified = await call(`${current.edge}/executions-verify-chain`, { token, timeoutMs: 60_000 });
    process.stdout.write(
      `chaos suite kill: ${KILLS} SIGKILLs; ${load.acks.length} appends acknowledged (${byKey.size} keys); present ${byKey.size - lost.length}, ` +
        `lost ${lost.length}; chain ${JSON.stringify(verified.body)}; kill to first acknowledgement after restart (ms) ${downMs.join(', ')}; ` +
        `refusals meanwhile ${JSON.stringify(Object.fromEntries(load.refusals))}\n`,
    );
    expect(lost).toEqual([]);
    expect(verified.body).toMatchObject({ valid: true, checked: byKey.size });
    await expectLogIntact({ base: current.edge, token, since: [logBefore] });
  });
});
