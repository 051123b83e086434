import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { access, constants, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

/**
 * A Postgres server of a test's own, from the machine's binaries (/usr/lib/postgresql/<version>/bin),
 * listening only on a Unix socket in its own folder: no port to pick or collide on, and the machine's
 * shared Postgres (127.0.0.1:5432) is never touched. Chaos tests kill it (SIGKILL to the postmaster)
 * and start it again on the same cluster. As root (CI), it runs in a user namespace where it is an
 * ordinary user, as the suite's embedded server does (storage/postgres-binaries.ts). Tests only.
 */
export interface PrivatePostgres {
  /** postgres:// URL of database `postgres`, user `postgres`, trust auth, over the socket. */
  readonly url: string;
  /** kill -9 of the postmaster; resolves once it has exited. */
  kill(): Promise<void>;
  /** Start it again on the same cluster (crash recovery replays the WAL); resolves once it answers. */
  start(): Promise<void>;
  /** Stop it and remove its folder. */
  destroy(): Promise<void>;
}

async function binDir(): Promise<string> {
  const root = '/usr/lib/postgresql';
  const versions = (await readdir(root)).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const dir = join(root, v, 'bin');
    if (
      await access(join(dir, 'postgres'), constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return dir;
  }
  throw new Error(`no Postgres binaries under ${root}/*/bin`);
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = await binDir();
  const folder = await mkdtemp(join(tmpdir(), 'suite-private-pg-'));
  const cluster = join(folder, 'cluster');
  const prefix = process.getuid?.() === 0 ? ['/usr/bin/unshare', '--user', '--map-user=1000', '--map-group=1000'] : [];
  const run = (program: string, args: string[]) => {
    const [cmd, ...rest] = [...prefix, program, ...args] as [string, ...string[]];
    return { cmd, rest };
  };
  const init = run(join(bin, 'initdb'), ['-D', cluster, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-instructions']);
  await promisify(execFile)(init.cmd, init.rest, { env: { LC_ALL: 'C' } });
  const url = `postgres://postgres@${encodeURIComponent(folder)}:5432/postgres`;
  let server: ChildProcess | undefined;

  const start = async () => {
    const p = run(join(bin, 'postgres'), ['-D', cluster, '-p', '5432', '-c', 'listen_addresses=', '-c', `unix_socket_directories=${folder}`, '-c', 'fsync=on']);
    const spawnServer = () => spawn(p.cmd, p.rest, { stdio: 'ignore', env: { LC_ALL: 'C' }, detached: true });
    server = spawnServer();
    for (let i = 0; i < 600; i++) {
      // Refused at once after a kill -9 while the old backends still hold its shared memory: again.
      if (server.exitCode !== null || server.signalCode !== null) server = spawnServer();
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
      try {
        await client.connect();
        await client.query('SELECT 1');
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      } finally {
        await client.end().catch(() => undefined);
      }
    }
    throw new Error(`the private Postgres in ${cluster} did not start`);
  };
  const postmaster = async () => Number((await readFile(join(cluster, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  const kill = async () => {
    const exited = server && server.exitCode === null ? once(server, 'exit') : Promise.resolve();
    process.kill(await postmaster(), 'SIGKILL');
    await exited;
  };
  await start();
  return {
    url,
    kill,
    start,
    async destroy() {
      if (server && server.exitCode === null && server.signalCode === null) {
        const exited = once(server, 'exit');
        process.kill(await postmaster(), 'SIGQUIT');
        await exited;
      }
      await rm(folder, { recursive: true, force: true });
    },
  };
}
