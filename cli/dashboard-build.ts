import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { DASHBOARD_DIST } from '../services/dashboard/index.ts';

/**
 * `suite start` builds the dashboard (`npm run build`) when dashboard/dist is missing, so a fresh
 * checkout serves it on 3001 at once. Without Vite (an install without dev dependencies) it says so
 * and goes on: the dashboard listener then answers 503 "not built" on `/`.
 */
export function ensureDashboardBuilt(logger: Logger): void {
  if (existsSync(join(DASHBOARD_DIST, 'index.html'))) return;
  let viteBin: string;
  try {
    viteBin = join(dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin', 'vite.js');
  } catch {
    logger.warn('the dashboard is not built and Vite is not installed: run `npm install` then `npm run build`');
    return;
  }
  logger.info('building the dashboard (dashboard/dist is missing)');
  const root = dirname(DASHBOARD_DIST);
  const r = spawnSync(process.execPath, [viteBin, 'build', root], { stdio: ['ignore', 'inherit', 'inherit'], timeout: 120_000 });
  if (r.status !== 0) logger.warn({ status: r.status }, 'the dashboard build failed: run `npm run build` to see why');
}
