import type { ConfigReader } from './reader.ts';

/** What the capability check every edge makes reads: the tokens' audience and the revocation view's bound. */
export interface CapabilityConfig {
  /** `SUITE_AUDIENCE`: when set, every token must carry it as `aud`, and tokens issued without one get it. */
  readonly audience: string | undefined;
  /** `SUITE_REVOCATION_STALENESS_MS`: an edge that has not heard the revocation heartbeat for this long fails closed. */
  readonly revocationStalenessMs: number;
}

export function capabilityConfig({ str, int }: ConfigReader): CapabilityConfig {
  return {
    audience: str('SUITE_AUDIENCE'),
    revocationStalenessMs: int('SUITE_REVOCATION_STALENESS_MS', 3000, 500, 60_000),
  };
}
