import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';

/**
 * The harness's own look at the NATS server a local cluster runs on: is it reachable, does anything
 * already answer the suite's subjects, and has a process of this cluster subscribed yet.
 */

export const TEST_NATS_URL = process.env.SUITE_TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

/** Connect (`url` may list a cluster's nodes, comma-separated), or fail with a message that says what to start; never a silent skip. */
export async function connectProbe(url: string): Promise<NatsConnection> {
  try {
    return await connect({
      servers: url.split(',').map((u) => u.trim()),
      name: 'local-cluster-probe',
      timeout: 3000,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
    });
  } catch (cause) {
    throw new Error(
      `NATS is not reachable at ${url} (${String(cause)}). Start it (nats-server -js -a 127.0.0.1 -p 4222) ` +
        'or set SUITE_TEST_NATS_URL. The multi-process tests need a real NATS and are never skipped.',
      { cause },
    );
  }
}

/**
 * Bodies that change nothing: a valid listing or snapshot request, else an invalid one (answered
 * INVALID_REQUEST, which is still an answer) where a valid one would write (validations are audited).
 */
const HARMLESS: Readonly<Record<string, string>> = {
  'suite.audit.list': '{"limit":1,"offset":0}',
  'suite.revocation.snapshot': '{}',
};

/** True when some process answers `subject`. */
export async function hasResponder(nc: NatsConnection, subject: string, timeoutMs = 1000): Promise<boolean> {
  try {
    await nc.request(subject, HARMLESS[subject] ?? '{}', { timeout: timeoutMs });
    return true;
  } catch {
    return false; // no responders, or no answer in time
  }
}

/**
 * The suite's subjects carry no deployment prefix, so two clusters on one NATS server would answer
 * each other's requests and keep each other's edges trusted with their heartbeats. Refuse loudly.
 */
export async function assertNoOtherCluster(nc: NatsConnection, url: string): Promise<void> {
  for (const subject of ['suite.revocation.snapshot', 'suite.tokens.validate', 'suite.audit.list']) {
    if (await hasResponder(nc, subject, 500)) {
      throw new Error(
        `another suite cluster is already running on NATS ${url} (something answers ${subject}); its messages ` +
          "would mix with this cluster's. Stop it, or point SUITE_TEST_NATS_URL at another server.",
      );
    }
  }
}

export interface NatsLock {
  release(): Promise<void>;
}

/**
 * One local cluster per NATS server at a time on this machine (test files run in parallel workers):
 * an exclusive lock file naming the holder's pid. A lock whose holder is gone is taken over.
 */
export async function lockNats(url: string, timeoutMs: number): Promise<NatsLock> {
  const path = join(tmpdir(), `suite-local-cluster-${createHash('sha256').update(url).digest('hex').slice(0, 16)}.lock`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const handle = await open(path, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      const release = async () => {
        process.removeListener('exit', onExit);
        await rm(path, { force: true });
      };
      // 'exit' handlers run synchronously only: a process that ends without release() frees it too.
      const onExit = () => rmSync(path, { force: true });
      process.once('exit', onExit);
      return { release };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const text = await readFile(path, 'utf8').catch(() => '');
    const holder = Number(text);
    if (holder === process.pid) throw new Error(`this process already runs a local cluster on NATS ${url}`);
    // Empty: its holder has created it and not yet written its pid; wait like for a live one.
    if (text !== '' && (!Number.isInteger(holder) || holder <= 0 || !alive(holder))) {
      await rm(path, { force: true }); // stale: the holder is gone
      continue;
    }
    if (Date.now() >= deadline) {
      throw new Error(`waited ${timeoutMs} ms for process ${holder} to release its local cluster on NATS ${url} (${path})`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
