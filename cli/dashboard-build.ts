import { spawnSync } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { DASHBOARD_DIST } from '../services/dashboard/index.ts';

/**
 * `suite start` builds the dashboard (as `npm run build` does) when dashboard/dist is missing, so a
 * fresh checkout serves it on 3001 at once (Vite, its Solid plugin and Solid are dependencies, not
 * dev dependencies, so a production install can build it too). Should Vite still be missing, it
 * says so and goes on: the dashboard listener then answers 503 "not built" on `/`.
 *
 * The build goes to a folder of its own, renamed into place when complete: several processes
 * starting at once (tests, a cluster) never serve or delete each other's half-written files.
 * Vite's output is captured, not printed: standard output carries only the log, standard error
 * only the start-up screen.
 */
export function ensureDashboardBuilt(logger: Logger): void {
  const dist = DASHBOARD_DIST.replace(/\/$/, '');
  if (existsSync(join(dist, 'index.html'))) return;
  let viteBin: string;
  try {
    viteBin = join(dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin', 'vite.js');
  } catch {
    logger.warn('the dashboard is not built and Vite is not installed: run `npm install` then `npm run build`');
    return;
  }
  logger.info('building the dashboard (dashboard/dist is missing)');
  const staging = `${dist}.build-${process.pid}-${Date.now()}`;
  const r = spawnSync(process.execPath, [viteBin, 'build', dirname(dist), '--outDir', staging, '--emptyOutDir'], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    logger.warn({ status: r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}`.slice(-2000) }, 'the dashboard build failed: run `npm run build` to see why');
    return;
  }
  try {
    renameSync(staging, dist);
  } catch {
    // Another process finished first: its build is as good as ours.
    rmSync(staging, { recursive: true, force: true });
  }
}
