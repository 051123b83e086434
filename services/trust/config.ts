import type { ConfigReader } from '../../config/index.ts';

export interface TrustSettings {
  /** `SUITE_TRUST_GATING`: when false (the default) `POST /score/{id}/check` always allows. */
  readonly gating: boolean;
  /** `SUITE_TRUST_GATE_THRESHOLD`: with gating on, a score below this is not allowed. */
  readonly gateThreshold: number;
  /** `SUITE_TRUST_MAX_DEPTH`: a chain deeper than this is a runaway. */
  readonly maxDepth: number;
  /** `SUITE_TRUST_MAX_FANOUT`: an interaction with more direct children than this is a runaway. */
  readonly maxFanOut: number;
  /** `SUITE_TRUST_STALL_MS`: a chain with a pending interaction and no activity for this long is stalled. */
  readonly stallMs: number;
}

export interface TrustConfig {
  /** The trust service (docs/TRUST.md): score gating (off by default) and the anomaly bounds. */
  readonly trust: TrustSettings;
}

export function trustConfig({ int, bool }: ConfigReader): TrustConfig {
  return {
    trust: {
      gating: bool('SUITE_TRUST_GATING', false),
      gateThreshold: int('SUITE_TRUST_GATE_THRESHOLD', 40, 0, 100),
      maxDepth: int('SUITE_TRUST_MAX_DEPTH', 16, 1, 10_000),
      maxFanOut: int('SUITE_TRUST_MAX_FANOUT', 32, 1, 100_000),
      stallMs: int('SUITE_TRUST_STALL_MS', 300_000, 1000, 30 * 24 * 3_600_000),
    },
  };
}
