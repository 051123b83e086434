import type { Logger } from 'pino';
import type { CommonQueryMethods } from 'slonik';
import type { Bus } from '../../../bus/index.ts';
import type { Storage } from '../../../storage/index.ts';
import type { OAuthError } from '../../../core/oauth/index.ts';
import type { OAuthClient } from '../clients.ts';
import type { TokenChecker } from '../../../actors/capability/index.ts';
import type { Federation } from '../federation.ts';

/**
 * The interface every grant module implements (grants/README.md). The token endpoint authenticates the
 * client, verifies the DPoP proof, then hands the grant its request; the grant answers what to mint or
 * an RFC 6749 error. Minting, `cnf`, `client_id`, the refresh token, the audit entry and the metrics
 * are the endpoint's, the same for every grant.
 */
export interface GrantRequest {
  /** The form parameters of the token request (application/x-www-form-urlencoded, each given once). */
  readonly params: Readonly<Record<string, string>>;
  /** The authenticated client, or a public client (`token_endpoint_auth_method: none`) named by `client_id`. */
  readonly client: OAuthClient;
  /**
   * The enrolled identity whose key signed the client's private_key_jwt assertion, when it is one: a
   * client-credentials token is then that identity's, with the proof claim (as `POST /issue`).
   */
  readonly identity: string | undefined;
  /** The JWK SHA-256 thumbprint (RFC 7638) of a valid DPoP proof's key, when the request carried one. */
  readonly dpopJkt: string | undefined;
  /** The issuer (RFC 8414) and this token endpoint's URL, as this request reached them. */
  readonly issuer: string;
  readonly tokenEndpoint: string;
  /** Unix seconds. */
  readonly now: number;
  /** What a grant may use to keep its own state (codes, device codes, replay caches). */
  readonly deps: GrantDeps;
}

export interface GrantDeps {
  readonly bus: Bus;
  readonly storage: Storage;
  readonly logger: Logger;
  /** The suite's own token check (a suite token presented as a grant's input: token exchange). */
  readonly checker: TokenChecker;
  /** Trusted outside issuers (`SUITE_OAUTH_TRUSTED_ISSUERS`); undefined: none configured. */
  readonly federation: Federation | undefined;
}

/** The capability token a grant asks the endpoint to mint. */
export interface TokenToMint {
  readonly sub: string;
  readonly scope: readonly string[];
  /** RFC 8707 `resource`, or the audience the grant decides; absent: the suite's default audience. */
  readonly aud?: string;
  readonly lifetimeSeconds: number;
  /** Tenant the token is issued under (claim `ten`). */
  readonly tenantId?: string;
  /** Issued with proof of an enrolled identity's key (claim `prf`, as `POST /issue`). */
  readonly proven?: boolean;
  /** RFC 8693 §4.1 actor claim, for delegation. */
  readonly act?: Readonly<Record<string, unknown>>;
  /**
   * Issue a refresh token beside the access token: `new` starts a family; `{ familyId }` continues one
   * (the refresh_token grant's rotation). Absent: none.
   */
  readonly refresh?: 'new' | { readonly familyId: string };
  /**
   * Called in the minting transaction, before anything is written, with the access token's jti (a code
   * grant records what its code issued). `false`: the authorization was revoked meanwhile (its code was
   * presented again while this token was being minted), so nothing is issued.
   */
  readonly recordIssued?: (tx: CommonQueryMethods, jti: string) => Promise<boolean>;
}

export type GrantOutcome =
  | { readonly ok: true; readonly mint: TokenToMint /** A few words for the audit entry (what was exchanged, approved). */; readonly note?: string }
  | { readonly ok: false; readonly error: OAuthError };

export interface GrantModule {
  /** The `grant_type` value it answers (RFC 6749 §4, or a URN of its RFC). */
  readonly type: string;
  /** Whether a public client may use it (authorization_code, device_code, refresh_token); else confidential only. */
  readonly publicClients: boolean;
  handle(request: GrantRequest): Promise<GrantOutcome>;
}
