import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { lstat, mkdir, mkdtemp, open, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { isAlive, lockDataDir, syncPath } from './data-dir.ts';
import { StorageError, type StorageLogger } from './errors.ts';
import { postgresLogLevel } from './postgres-log-lines.ts';
import type { PostgresBinaries } from './postgres-binaries.ts';
import { superviseServer, type RestartPolicy, type SupervisedServer } from './embedded-supervisor.ts';

/**
 * A Postgres server of the suite's own, for the embedded default: its cluster in `<dbPath>/postgres`
 * (made by initdb on the first start), its password in `<dbPath>/postgres-password` (owner-only).
 * It listens on no TCP port, only on a Unix socket in an owner-only folder under the temporary
 * directory (socketFolder; removed at stop): no port to collide with the suite's own listeners or
 * anything else, and no one else on the machine can connect. Postgres's own
 * durability, as on any server: a commit is answered once its WAL is synced (the settings below
 * are Postgres's defaults, spelled out so that no configuration file can turn them off).
 */
export interface EmbeddedPostgres {
  /** postgres:// URL, with the password. */
  readonly url: string;
  /** False once the server has exited (crash or stop). */
  alive(): boolean;
  /** Fast shutdown (the pool has ended), then release the folder. Idempotent. */
  stop(): Promise<void>;
}

const CLUSTER = 'postgres';
const PASSWORD_FILE = 'postgres-password';
const USER = 'suite';
const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 30_000;
/** Only names the socket file (`.s.PGSQL.5432`) in the run's own folder: no TCP port is opened. */
const PORT = 5432;

const STARTING = /FATAL: {2}the database system is (starting up|not yet accepting connections|in recovery mode)/;

const SETTINGS: Readonly<Record<string, string>> = {
  listen_addresses: '',
  unix_socket_permissions: '0700',
  fsync: 'on',
  synchronous_commit: 'on',
  full_page_writes: 'on',
  timezone: 'UTC',
  log_timezone: 'UTC',
  // The server's log goes to the suite's (warnings and worse, below); statements that fail are
  // the suite's to report, with their parameters kept out of the log.
  log_min_messages: 'warning',
  log_min_error_statement: 'panic',
  // Sized for one machine (docs/PERFORMANCE.md, "Memory of the embedded default"). The buffers a
  // backend touches count in the suite's memory: 32 MB instead of 128 bounds them once the tables
  // outgrow them (the operating system's page cache still holds the rest, outside the suite's PSS).
  shared_buffers: '32MB',
  // Reads done by each backend itself (Postgres 17's way) rather than handed to three I/O worker
  // processes of ~2 MB each; the suite's reads are index lookups and one scan at a time.
  io_method: 'sync',
  // No logical replication: its launcher process (~1 MB) is not started.
  max_logical_replication_workers: '0',
};

/**
 * Start the server and keep it running: when it dies (a kill -9, an OOM kill), it is restarted
 * under `restart` (embedded-supervisor.ts); Postgres replays its WAL, so every committed write is
 * there again. Without `restart`, a death is only logged (tests of the server itself).
 */
export async function startEmbeddedPostgres(
  dbPath: string,
  binaries: PostgresBinaries,
  logger: StorageLogger,
  restart?: RestartPolicy,
): Promise<EmbeddedPostgres> {
  const unlock = await lockDataDir(dbPath);
  try {
    const cluster = join(dbPath, CLUSTER);
    const password = await ensureCluster(dbPath, binaries);
    await endOrphan(cluster, logger);
    const socketDir = await socketFolder(cluster);
    const release = async () => {
      await rm(socketDir, { recursive: true, force: true });
      await unlock();
    };
    const url = `postgres://${USER}:${password}@${encodeURIComponent(socketDir)}:${PORT}/postgres`;
    const server = spawnServer(binaries, cluster, socketDir, logger);
    const failure = await server.ready(url, READY_TIMEOUT_MS);
    if (failure === undefined) {
      const supervised =
        restart === undefined
          ? server
          : superviseServer({ first: server, spawn: () => spawnServer(binaries, cluster, socketDir, logger), url, cluster, policy: restart, logger });
      const stop = async () => {
        try {
          await supervised.stop();
        } finally {
          await release();
        }
      };
      return { url, alive: supervised.alive, stop };
    }
    await server.stop();
    await rm(socketDir, { recursive: true, force: true });
    throw new StorageError('DATABASE_UNAVAILABLE', `cannot start the embedded Postgres in ${cluster}: ${failure}`);
  } catch (error) {
    await unlock();
    throw error;
  }
}

/** The cluster's password; the cluster is made first if there is none (in a new folder, renamed into place). */
async function ensureCluster(dbPath: string, binaries: PostgresBinaries): Promise<string> {
  const passwordPath = join(dbPath, PASSWORD_FILE);
  const exists = await readFile(join(dbPath, CLUSTER, 'PG_VERSION'), 'utf8').then(
    () => true,
    () => false,
  );
  if (exists) {
    return (await readFile(passwordPath, 'utf8')).trim() || Promise.reject(new StorageError('DATABASE_UNAVAILABLE', `${passwordPath} is empty`));
  }
  // An initdb cut short leaves only this folder behind, never a half-made cluster.
  const fresh = join(dbPath, `${CLUSTER}.new`);
  await rm(fresh, { recursive: true, force: true });
  const password = randomBytes(32).toString('base64url');
  await writeSynced(passwordPath, `${password}\n`);
  const args = ['-D', fresh, '-U', USER, `--pwfile=${passwordPath}`, '--auth=scram-sha-256', '--encoding=UTF8', '--locale=C', '--no-instructions'];
  const result = await run([...binaries.prefix, binaries.initdb, ...args]);
  if (result.code !== 0) {
    throw new StorageError('DATABASE_UNAVAILABLE', `initdb failed in ${fresh} (${result.code}): ${result.output.slice(-2000)}`);
  }
  // initdb synced the cluster's files; the rename and the folder that records it are synced here.
  await rename(fresh, join(dbPath, CLUSTER));
  await syncPath(dbPath);
  return password;
}

/**
 * A server left running on this cluster by a suite that was killed where its death could not stop
 * it (no parent-death signal): this process holds the folder's lock, so no suite uses it. Postgres
 * itself would refuse to start beside it.
 */
async function endOrphan(cluster: string, logger: StorageLogger): Promise<void> {
  const pid = Number((await readFile(join(cluster, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  // Only a process that is a postgres on this cluster: a pid may have been reused since.
  if (!(await commandLine(pid)).includes(cluster)) return;
  logger.warn({ pid, cluster }, 'a Postgres left by an earlier run still holds the cluster: stopping it');
  for (const [signal, waitMs] of [
    ['SIGINT', 15_000],
    ['SIGQUIT', 5_000],
    ['SIGKILL', 5_000],
  ] as const) {
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    const deadline = Date.now() + waitMs;
    while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (!isAlive(pid)) return;
  }
}

/**
 * The socket's folder: short (a socket's path is limited to ~100 bytes), owner-only, named after
 * the cluster so that a run killed before it could remove it leaves one folder, reused by the
 * next. One of someone else's by that name is not used: a new one is made instead.
 */
async function socketFolder(cluster: string): Promise<string> {
  const path = join(tmpdir(), `suite-pg-${createHash('sha256').update(cluster).digest('hex').slice(0, 16)}`);
  await mkdir(path, { mode: 0o700 }).catch(() => undefined);
  const found = await lstat(path).catch(() => undefined);
  const ours = found?.isDirectory() === true && found.uid === process.getuid?.() && (found.mode & 0o777) === 0o700;
  return ours ? path : mkdtemp(join(tmpdir(), 'suite-pg-'));
}

/** A process's command line: from /proc on Linux, else from ps (macOS); empty if unknown. */
async function commandLine(pid: number): Promise<string> {
  const proc = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => undefined);
  if (proc !== undefined) return proc;
  return promisify(execFile)('ps', ['-o', 'command=', '-p', String(pid)]).then(
    (r) => r.stdout,
    () => '',
  );
}

function spawnServer(binaries: PostgresBinaries, cluster: string, socketDir: string, logger: StorageLogger): SupervisedServer {
  const settings = Object.entries({ ...SETTINGS, unix_socket_directories: socketDir }).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
  const [program, ...args] = [...binaries.serverPrefix, binaries.postgres, '-D', cluster, '-p', String(PORT), ...settings] as [string, ...string[]];
  // Its own process group: a Ctrl+C reaches the suite, which drains its pool before stopping it.
  const child = spawn(program, args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'], env: serverEnv() });
  const tail: string[] = [];
  let partial = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      tail.push(line);
      if (tail.length > 30) tail.shift();
      // A connection refused while the server starts (after a restart the pool keeps trying) is
      // the answer the caller already gets as a 503; one log line per attempt would only bury the rest.
      if (STARTING.test(line)) continue;
      const level = postgresLogLevel(line, starting);
      if (level !== undefined) logger[level]({ postgres: line }, 'embedded Postgres');
    }
  });
  let exited = false;
  let stopping = false;
  // Until the readiness probe is answered: its expected refusals are not errors (postgres-log-lines.ts).
  let starting = true;
  const exit = once(child, 'close').then(([code, signal]: unknown[]) => {
    exited = true;
    if (!stopping) logger.error({ code, signal, log: tail.slice(-5) }, 'embedded Postgres exited unexpectedly');
  });
  child.on('error', (error) => tail.push(String(error)));
  let stopped: Promise<void> | undefined;

  return {
    exited: exit,
    async ready(url, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (!exited && !stopping && Date.now() < deadline) {
        const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
        try {
          await client.connect();
          await client.query('SELECT 1');
          starting = false;
          return undefined;
        } catch {
          await new Promise((r) => setTimeout(r, 50));
        } finally {
          await client.end().catch(() => undefined);
        }
      }
      if (stopping) return 'stopped while starting';
      return exited ? tail.join('\n').slice(-2000) || 'it exited at once' : `no answer within ${timeoutMs / 1000} s`;
    },
    alive: () => !exited,
    stop() {
      stopped ??= (async () => {
        stopping = true;
        // SIGINT: fast shutdown (sessions ended, a checkpoint, then exit); then immediate; then kill.
        for (const [signal, waitMs] of [
          ['SIGINT', STOP_GRACE_MS],
          ['SIGQUIT', 5_000],
          ['SIGKILL', 5_000],
        ] as const) {
          if (exited) return;
          child.kill(signal);
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([exit, new Promise((r) => (timer = setTimeout(r, waitMs)))]);
          clearTimeout(timer);
        }
      })();
      return stopped;
    },
  };
}

/** Nothing of the suite's environment (its secrets among it): every program is named by its path. */
function serverEnv(): NodeJS.ProcessEnv {
  return { LC_ALL: 'C' };
}

function run(command: readonly string[]): Promise<{ code: number | null; output: string }> {
  const [program, ...args] = command as [string, ...string[]];
  const child: ChildProcess = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'], env: serverEnv() });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (output += d));
  return new Promise((resolve) => {
    child.on('error', (error) => resolve({ code: -1, output: String(error) }));
    child.on('close', (code) => resolve({ code, output }));
  });
}

async function writeSynced(path: string, text: string): Promise<void> {
  const handle = await open(path, 'w', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
