import { existsSync } from 'node:fs';
import type { ConfigReader } from './reader.ts';

/** Where the suite keeps its data: the data folder, the database and its pool, the embedded database's restarts. */
export interface StorageConfig {
  /** `SUITE_DATA_DIR`: where first-run secrets live; also the default home of the embedded database. */
  readonly dataDir: string | undefined;
  readonly databaseUrl: string | undefined;
  /** Folder of the embedded database; undefined = in memory (nothing survives a restart). */
  readonly dbPath: string | undefined;
  /**
   * `SUITE_DATABASE_POOL_SIZE`: most connections of this process's pool; undefined = storage's
   * default (10 on a server given by URL, 4 on the embedded one: storage/open.ts).
   */
  readonly databasePoolSize: number | undefined;
  /**
   * The embedded Postgres is restarted when it dies: at most `attempts` times per death, and never
   * once it has been down `windowMs`; then the process exits non-zero (storage/embedded-supervisor.ts).
   */
  readonly dbRestart: { readonly attempts: number; readonly windowMs: number };
}

export function storageConfig({ str, int, fail }: ConfigReader): StorageConfig {
  const dataDir = str('SUITE_DATA_DIR');
  const databaseUrl = str('SUITE_DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw fail('SUITE_DATABASE_URL', 'must be a postgres:// URL');
  }
  return {
    dataDir,
    databaseUrl,
    dbPath: str('SUITE_DB_PATH') ?? (dataDir !== undefined && databaseUrl === undefined ? embeddedDbPath(dataDir) : undefined),
    databasePoolSize: str('SUITE_DATABASE_POOL_SIZE') === undefined ? undefined : int('SUITE_DATABASE_POOL_SIZE', 0, 1, 100),
    dbRestart: {
      attempts: int('SUITE_DB_RESTART_ATTEMPTS', 5, 1, 100),
      windowMs: int('SUITE_DB_RESTART_WINDOW_MS', 60_000, 1_000, 3_600_000),
    },
  };
}

/**
 * `<data folder>/database`; but a data folder of an earlier version keeps its database where that
 * version put it, `<data folder>/pglite` (storage/ decides which engine opens it).
 */
function embeddedDbPath(dataDir: string): string {
  const earlier = `${dataDir}/pglite`;
  return existsSync(earlier) ? earlier : `${dataDir}/database`;
}
