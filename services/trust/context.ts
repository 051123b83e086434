import type { Bus, Caller } from '../../bus/index.ts';
import type { TrustSettings } from './config.ts';
import type { Storage } from '../../storage/index.ts';

/** What the trust arbiter's handlers share. */
export interface TrustDeps {
  readonly bus: Bus;
  readonly storage: Storage;
  readonly settings: TrustSettings;
  /** The clock, so that stall tests need not wait. */
  readonly now: () => number;
}

/** The tenant a caller reads and writes as (undefined: a caller without one, which reads every tenant's rows). */
export const tenantOf = (caller: Caller): string | undefined => caller.tenantId;
export const tenantColumn = (caller: Caller): string | null => caller.tenantId ?? null;
