import { createHash } from 'node:crypto';
import type { ReplyOf, RequestOf } from '../../../bus/index.ts';
import type { subjects } from '../../../bus/index.ts';
import { countSignupAttempt, pruneSignupAttempts } from '../../../storage/index.ts';
import type { TenancyActorOptions } from './options.ts';

/** Public signups allowed per client address per clock hour (docs/TENANCY.md, "Signup"). */
export const SIGNUPS_PER_HOUR = 5;
const HOUR_MS = 3_600_000;
const KEEP_WINDOWS_MS = 24 * HOUR_MS;

type Create = (r: RequestOf<typeof subjects.tenancyCreate>) => Promise<ReplyOf<typeof subjects.tenancyCreate>>;

/**
 * A free tenant for anyone, at most SIGNUPS_PER_HOUR per client address and clock hour. Counted in
 * the database by one conditional statement, so the limit holds across every edge and replica
 * (an in-memory limiter per edge would allow that many per edge). The address is stored only as
 * its SHA-256, and forgotten after a day.
 */
export async function signup(o: Pick<TenancyActorOptions, 'storage'>, req: RequestOf<typeof subjects.tenancySignup>, nowMs: number, create: Create) {
  const db = o.storage.pool;
  const windowStart = Math.floor(nowMs / HOUR_MS) * HOUR_MS;
  const ipHash = createHash('sha256').update(req.clientIp).digest('hex');
  await pruneSignupAttempts(db, new Date(windowStart - KEEP_WINDOWS_MS).toISOString());
  if (!(await countSignupAttempt(db, ipHash, new Date(windowStart).toISOString(), SIGNUPS_PER_HOUR))) {
    return { created: false as const, retryAfterSeconds: Math.max(1, Math.ceil((windowStart + HOUR_MS - nowMs) / 1000)) };
  }
  const tenant = await create({ name: req.name, plan: 'free', by: 'signup', ...(req.email !== undefined ? { email: req.email } : {}) });
  return { created: true as const, tenant };
}
