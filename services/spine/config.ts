import type { ConfigReader } from '../../config/index.ts';
import { tlogConfig, type TlogConfig } from './tlog/config.ts';

/** The spine's section: its chain writers' lease, retention, and the transparency log (tlog/config.ts). */
export interface SpineConfig extends TlogConfig {
  /** Lease of a chain writer (audit, executions): a standby takes over this long after the leader died. */
  readonly chainLeaseMs: number;
  /** How often the leader renews its lease and a standby tries to take it (shorter than the lease). */
  readonly chainLeaseRenewMs: number;
  /**
   * `SUITE_RETENTION_EVERY_MS`, `SUITE_RETENTION_BATCH`: how often the retention pruner runs (in a
   * chain-writer process) and how many entries each of its transactions deletes (docs/TENANCY.md,
   * "Retention").
   */
  readonly retention: { readonly everyMs: number; readonly batch: number };
}

export function spineConfig(read: ConfigReader): SpineConfig {
  const { int, fail } = read;
  // Defaults by measurement (docs/RELIABILITY.md, "Chain writer failover"): takeover under 2 s p99
  // (distributed), and an embedded suite restarted after a crash waits out a shorter lease of its
  // dead self. A renewal at most half the lease leaves the leader a second chance before it expires.
  const chainLeaseMs = int('SUITE_CHAIN_LEASE_MS', 1500, 300, 60_000);
  const chainLeaseRenewMs = int('SUITE_CHAIN_LEASE_RENEW_MS', Math.max(50, Math.floor(chainLeaseMs / 6)), 50, 30_000);
  if (chainLeaseRenewMs * 2 > chainLeaseMs) {
    throw fail('SUITE_CHAIN_LEASE_RENEW_MS', `must be at most half of SUITE_CHAIN_LEASE_MS (${chainLeaseMs}), got ${chainLeaseRenewMs}`);
  }
  return {
    chainLeaseMs,
    chainLeaseRenewMs,
    ...tlogConfig(read),
    retention: {
      everyMs: int('SUITE_RETENTION_EVERY_MS', 300_000, 1000, 86_400_000),
      batch: int('SUITE_RETENTION_BATCH', 1000, 1, 100_000),
    },
  };
}
