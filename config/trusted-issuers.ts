import { readFileSync } from 'node:fs';
import { parseTrustedIssuers, type TrustedIssuers } from '../core/federation/index.ts';

/**
 * `SUITE_OAUTH_TRUSTED_ISSUERS`: the file of workload identity federation's trusted issuers (RFC 8693
 * token exchange, docs/OAUTH.md), read and checked at start: a file that cannot be read or parsed stops
 * the start with a message naming the entry. Unset: no outside issuer is trusted (token exchange still
 * attenuates suite tokens).
 */
export function loadTrustedIssuers(path: string | undefined, fail: (variable: string, message: string) => Error): TrustedIssuers | undefined {
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw fail('SUITE_OAUTH_TRUSTED_ISSUERS', `cannot be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const parsed = parseTrustedIssuers(text);
  if (!parsed.ok) throw fail('SUITE_OAUTH_TRUSTED_ISSUERS', parsed.message);
  return parsed.config;
}
