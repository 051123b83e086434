import { MIN_SECRET_LENGTH } from '../core/capability/index.ts';
import type { ConfigReader } from './reader.ts';

/** Secrets made on first run and kept in the data folder; environment variables always win. */
export interface StoredSecrets {
  hmacSecret: string;
  adminKey: string;
  tracePrivateKeyPem: string;
}

export interface SecretsConfig {
  /** Newest first: the first signs, all validate. */
  readonly hmacSecrets: readonly string[];
  readonly adminKey: string | undefined;
  readonly tracePrivateKeyPem: string | undefined;
}

/** `SUITE_HMAC_SECRET` (required in production), `SUITE_HMAC_PREVIOUS_SECRETS`, `SUITE_ADMIN_KEY`, `SUITE_TRACE_PRIVATE_KEY`. */
export function secretsConfig({ str, fail }: ConfigReader, production: boolean, stored: StoredSecrets | undefined): SecretsConfig {
  const envSecret = str('SUITE_HMAC_SECRET');
  if (envSecret !== undefined && envSecret.length < MIN_SECRET_LENGTH) {
    throw fail('SUITE_HMAC_SECRET', `must be at least ${MIN_SECRET_LENGTH} characters`);
  }
  if (production && envSecret === undefined) {
    throw fail('SUITE_HMAC_SECRET', `is required in production (NODE_ENV=production), ${MIN_SECRET_LENGTH}+ characters`);
  }
  const previous = (str('SUITE_HMAC_PREVIOUS_SECRETS') ?? '').split(/[\s,]+/).filter((s) => s !== '');
  for (const p of previous) {
    if (p.length < MIN_SECRET_LENGTH) throw fail('SUITE_HMAC_PREVIOUS_SECRETS', `each secret must be at least ${MIN_SECRET_LENGTH} characters`);
  }
  const signing = envSecret ?? stored?.hmacSecret;
  const traceKey = str('SUITE_TRACE_PRIVATE_KEY')?.replace(/\\n/g, '\n');
  if (traceKey !== undefined && !traceKey.includes('PRIVATE KEY')) {
    throw fail('SUITE_TRACE_PRIVATE_KEY', 'must be a PEM-encoded Ed25519 private key');
  }
  return {
    hmacSecrets: signing === undefined ? [] : [signing, ...previous.filter((p) => p !== signing)],
    adminKey: str('SUITE_ADMIN_KEY') ?? stored?.adminKey,
    tracePrivateKeyPem: traceKey ?? stored?.tracePrivateKeyPem,
  };
}
