import type { Bus } from '../../../bus/index.ts';
import type { Storage } from '../../../storage/index.ts';
import type { AuditBatcher } from '../../../actors/audit/index.ts';

/** What the tenancy actor and its helpers (billing.ts, signup.ts) work with. */
export interface TenancyActorOptions {
  bus: Bus;
  storage: Storage;
  audit: AuditBatcher;
  logger?: { warn(o: object, m?: string): void; error(o: object, m?: string): void };
  clock?: () => number;
}
