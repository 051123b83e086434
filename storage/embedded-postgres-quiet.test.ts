import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStorage } from './open.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * Issue 23 part 6: a normal start of the embedded Postgres logs nothing above warning (it logged
 * `FATAL: the database system is starting up` as an error: the answer to the suite's own readiness
 * probe). A first start (initdb) and a second start of the same folder, each logged in full.
 */
const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((f) => rm(f, { recursive: true, force: true })));
});

describe('the embedded Postgres start', () => {
  it('logs no error on a first start and on a restart of the same folder', { timeout: machineTimeout(120_000) }, async () => {
    const folder = await mkdtemp(join(tmpdir(), 'suite-pg-quiet-'));
    folders.push(folder);
    const errors: unknown[] = [];
    const logger = {
      info: () => {},
      warn: () => {},
      error: (fields: Record<string, unknown>, message: string) => errors.push({ message, ...fields }),
    };
    for (let start = 0; start < 2; start++) {
      const storage = await openStorage({ dbPath: join(folder, 'database'), migrationSets: [], logger });
      await storage.close();
    }
    expect(errors).toEqual([]);
  });
});
