import type { Logger } from 'pino';
import type { Counter } from 'prom-client';
import type { Bus } from '../../bus/index.ts';
import type { Storage } from '../../storage/index.ts';
import type { HmacKeyRing } from '../../core/capability/index.ts';
import type { AuditBatcher } from '../../actors/audit/index.ts';
import type { TokenChecker } from '../../actors/capability/index.ts';
import type { Federation } from './federation.ts';

/** What the OAuth actor's handlers share: one of each per process. */
export interface OAuthDeps {
  readonly bus: Bus;
  readonly storage: Storage;
  readonly ring: HmacKeyRing;
  readonly audit: AuditBatcher;
  readonly checker: TokenChecker;
  readonly logger: Logger;
  /** `SUITE_AUDIENCE`: the audience of a token whose grant names no resource. */
  readonly audience: string | undefined;
  /** `suite_oauth_grants_total{grant_type,outcome}`. */
  readonly counter: Counter<'grant_type' | 'outcome'>;
  readonly clock: () => number;
  /** Workload identity federation (`SUITE_OAUTH_TRUSTED_ISSUERS`); undefined: no outside issuer trusted. */
  readonly federation: Federation | undefined;
}
