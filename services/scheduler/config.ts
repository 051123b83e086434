import type { ConfigReader } from '../../config/index.ts';

export interface SchedulerConfig {
  /** `SCHEDULER_SCRIPT_ROOT`: the folder script tasks run from; unset, script tasks are off. */
  readonly schedulerScriptRoot: string | undefined;
  /** The scheduler's workers and queue (docs/SCHEDULER.md); every duration in milliseconds. */
  readonly scheduler: {
    /** `SCHEDULER_WORKERS`: tasks one scheduler actor runs at a time. */
    readonly workers: number;
    /** `SCHEDULER_QUEUE_MAX`: unfinished tasks the queue holds before `POST /queue` answers 429. */
    readonly queueMax: number;
    /** `SCHEDULER_QUEUE_TENANT_MAX`: unfinished tasks one tenant may hold (callers without a tenant count as one). */
    readonly queueTenantMax: number;
    /** `SCHEDULER_LEASE_MARGIN_MS`: past a task's timeout, this long before its worker is presumed dead. */
    readonly leaseMarginMs: number;
    /** `SCHEDULER_POLL_MS`: how often idle workers look at the shared queue. */
    readonly pollMs: number;
  };
}

export function schedulerConfig({ str, int }: ConfigReader): SchedulerConfig {
  return {
    schedulerScriptRoot: str('SCHEDULER_SCRIPT_ROOT'),
    scheduler: {
      workers: int('SCHEDULER_WORKERS', 16, 1, 1024),
      queueMax: int('SCHEDULER_QUEUE_MAX', 10_000, 1, 10_000_000),
      queueTenantMax: int('SCHEDULER_QUEUE_TENANT_MAX', 1_000, 1, 10_000_000),
      leaseMarginMs: int('SCHEDULER_LEASE_MARGIN_MS', 30_000, 100, 3_600_000),
      pollMs: int('SCHEDULER_POLL_MS', 200, 5, 60_000),
    },
  };
}
