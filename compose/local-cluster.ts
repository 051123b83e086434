/**
 * The distributed cluster as plain OS processes on this machine (no Docker engine here): a
 * throwaway Postgres database, `node cli/suite.ts run ROLE...` children sharing one NATS server,
 * each binding ports of its own choosing (port 0, read back), each child waited for until it is
 * ready, its output kept for the test that fails, and everything stopped (SIGTERM, then SIGKILL)
 * and dropped at the end.
 *
 * Run directly (`npx node compose/local-cluster.ts`) it starts a demo cluster and prints its URLs.
 */
import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isEdgeRole } from '../cli/roles.ts';
import { createTestDatabase } from '../testing/storage.ts';
import { ClusterProcess, type ProcessPlan, type Shared } from './cluster-process.ts';
import { TEST_NATS_URL, assertNoOtherCluster, connectProbe, lockNats } from './nats-probe.ts';

export { Child, listenerPorts, waitFor, zeroPorts, type Exit } from './child.ts';
export { ClusterProcess, type ProcessPlan } from './cluster-process.ts';
export { TEST_NATS_URL } from './nats-probe.ts';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface LocalClusterOptions {
  readonly processes: readonly ProcessPlan[];
  /** Default SUITE_TEST_NATS_URL, else nats://127.0.0.1:4222. */
  readonly natsUrl?: string;
  /** Default: a new database on the test Postgres, dropped by `stop()`. */
  readonly databaseUrl?: string;
  /** SUITE_REVOCATION_STALENESS_MS of every process (default 1000: outages show within a second). */
  readonly stalenessMs?: number;
  /** Extra environment for every process. */
  readonly env?: Readonly<Record<string, string>>;
  readonly readyTimeoutMs?: number;
  /** How long to wait for another local cluster on the same NATS server to finish (default 60 s). */
  readonly lockTimeoutMs?: number;
}

export interface LocalCluster {
  readonly natsUrl: string;
  readonly databaseUrl: string;
  readonly adminKey: string;
  readonly processes: readonly ClusterProcess[];
  process(name: string): ClusterProcess;
  /** Output of every process, for a failed test. */
  output(): string;
  /**
   * Edges first, then actor processes (each SIGTERM, then SIGKILL after `graceMs`, default 10 s);
   * then the probe, the database and the lock. Idempotent.
   */
  stop(graceMs?: number): Promise<void>;
}

export async function startLocalCluster(o: LocalClusterOptions): Promise<LocalCluster> {
  const natsUrl = o.natsUrl ?? TEST_NATS_URL;
  const undo: Array<() => Promise<unknown>> = [];
  let graceMs = 10_000;
  const cleanup = async () => {
    for (const step of undo.splice(0).reverse()) await step().catch(() => {});
  };
  try {
    const lock = await lockNats(natsUrl, o.lockTimeoutMs ?? 60_000);
    undo.push(() => lock.release());
    const probe = await connectProbe(natsUrl);
    undo.push(() => probe.close());
    await assertNoOtherCluster(probe, natsUrl);
    let databaseUrl = o.databaseUrl;
    if (databaseUrl === undefined) {
      const db = await createTestDatabase();
      undo.push(() => db.drop());
      databaseUrl = db.url;
    }
    const adminKey = `sk_admin_local_${randomBytes(12).toString('hex')}`;
    const env: Record<string, string> = {
      ...inherited(),
      SUITE_NATS_URL: natsUrl,
      SUITE_DATABASE_URL: databaseUrl,
      SUITE_HMAC_SECRET: randomBytes(32).toString('hex'),
      SUITE_ADMIN_KEY: adminKey,
      SUITE_LOG_LEVEL: 'warn',
      SUITE_REVOCATION_STALENESS_MS: String(o.stalenessMs ?? 1000),
      ...o.env,
    };
    const shared: Shared = { env, probe, readyTimeoutMs: o.readyTimeoutMs ?? 30_000, cwd: REPO_ROOT };
    const processes = o.processes.map((plan) => new ClusterProcess(plan, shared));
    const isEdgeOnly = (p: ClusterProcess) => p.roles.every(isEdgeRole);
    undo.push(async () => {
      await Promise.all(processes.filter(isEdgeOnly).map((p) => p.stop(graceMs)));
      await Promise.all(processes.map((p) => p.stop(graceMs)));
    });
    // Processes with actors first, then the edge-only ones, each group in parallel. (Edges started
    // first work too, but their view then briefly distrusts itself once more after it is ready.)
    for (const group of [processes.filter((p) => !isEdgeOnly(p)), processes.filter(isEdgeOnly)]) {
      const started = await Promise.allSettled(group.map((p) => p.start()));
      const failed = started.find((s) => s.status === 'rejected');
      if (failed) throw failed.reason;
    }

    let stopping: Promise<void> | undefined;
    return {
      natsUrl,
      databaseUrl,
      adminKey,
      processes,
      process(name) {
        const p = processes.find((x) => x.name === name);
        if (!p) throw new Error(`no process named ${name}`);
        return p;
      },
      output: () => processes.map((p) => p.output()).join('\n'),
      stop(grace) {
        if (grace !== undefined) graceMs = grace;
        stopping ??= cleanup();
        return stopping;
      },
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/** Only what a child needs from this environment: never this process's own SUITE_* settings. */
export function inherited(): Record<string, string> {
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'];
  return Object.fromEntries(keep.flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k] as string]])));
}

async function demo(): Promise<void> {
  const cluster = await startLocalCluster({
    processes: [
      {
        name: 'actors',
        roles: ['actor:chain-writer', 'actor:audit', 'actor:executions', 'actor:revocation', 'actor:tokens', 'actor:oauth', 'actor:connectors'],
      },
      { name: 'token-1', roles: ['edge:token'] },
      { name: 'token-2', roles: ['edge:token'] },
      { name: 'scheduler', roles: ['edge:scheduler'] },
    ],
    stalenessMs: 3000,
    lockTimeoutMs: 0,
  });
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`local cluster up: NATS ${cluster.natsUrl}, Postgres ${cluster.databaseUrl} (dropped on exit)`);
  for (const p of cluster.processes) {
    out(`  ${p.name.padEnd(10)} pid ${String(p.pid).padEnd(8)} ${p.services.map((s) => p.url(s)).join(' ') || p.roles.join(' ')}`);
  }
  out(`admin key: ${cluster.adminKey}`);
  out(
    `try: curl -s -X POST ${cluster.process('token-1').url('token', '/auth/token')} -H 'X-Suite-Admin-Key: ${cluster.adminKey}' ` +
      `-H 'content-type: application/json' -d '{"sub":"agent-1","scope":["audit:read"]}'`,
  );
  out('Ctrl-C stops everything.');
  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  out('stopping...');
  await cluster.stop();
  out(`what the processes printed:\n${cluster.output()}`);
}

if (import.meta.main) {
  demo().catch((err: unknown) => {
    process.stderr.write(`local-cluster: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
