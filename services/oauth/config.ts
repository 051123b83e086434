import { readFileSync } from 'node:fs';
import { parseTrustedIssuers, type TrustedIssuers } from '../../core/federation/index.ts';
import type { ConfigReader } from '../../config/index.ts';

export interface OAuthConfig {
  /** Workload identity federation's trusted issuers (`SUITE_OAUTH_TRUSTED_ISSUERS`), checked; undefined: none. */
  readonly oauthTrustedIssuers: TrustedIssuers | undefined;
}

/**
 * `SUITE_OAUTH_TRUSTED_ISSUERS`: the file of workload identity federation's trusted issuers (RFC 8693
 * token exchange, docs/OAUTH.md), read and checked at start: a file that cannot be read or parsed stops
 * the start with a message naming the entry. Unset: no outside issuer is trusted (token exchange still
 * attenuates suite tokens).
 */
export function oauthConfig({ str, fail }: ConfigReader): OAuthConfig {
  const path = str('SUITE_OAUTH_TRUSTED_ISSUERS');
  if (path === undefined) return { oauthTrustedIssuers: undefined };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw fail('SUITE_OAUTH_TRUSTED_ISSUERS', `cannot be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const parsed = parseTrustedIssuers(text);
  if (!parsed.ok) throw fail('SUITE_OAUTH_TRUSTED_ISSUERS', parsed.message);
  return { oauthTrustedIssuers: parsed.config };
}
