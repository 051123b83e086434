import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The billing webhook's signature (docs/BILLING-WEBHOOK.md). Header `billing-signature`:
 *
 *   t=<unix seconds>,v1=<hex HMAC-SHA256>[,v1=<hex HMAC-SHA256>...]
 *
 * each v1 being HMAC-SHA256(secret, `${t}.` + raw body bytes). Several v1 entries let a sender sign
 * with an old and a new secret while it rotates; several configured secrets let the receiver do the
 * same. The timestamp is signed too, so a captured request cannot be replayed outside the tolerance
 * (and inside it, the event id is processed once). Pure: the clock and the secrets are the caller's.
 */
export const SIGNATURE_HEADER = 'billing-signature';
export const TOLERANCE_SECONDS = 300;

// Bounds on what an unauthenticated sender can make us parse and hash.
const MAX_HEADER_LENGTH = 2048;
const MAX_SIGNATURES = 8;
const HEX_SHA256 = /^[0-9a-f]{64}$/;
const SECONDS = /^[0-9]{1,12}$/;

export type SignatureCheck = { ok: true; timestamp: number } | { ok: false; reason: string };

interface ParsedHeader {
  timestamp: number;
  signatures: Buffer[];
}

/** `t` exactly once; `v1` entries of 64 hex digits; other schemes (`v0`...) are ignored. */
export function parseSignatureHeader(header: string): ParsedHeader | null {
  if (header.length > MAX_HEADER_LENGTH) return null;
  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 1) return null;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined || !SECONDS.test(value)) return null;
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (!HEX_SHA256.test(value)) return null;
      signatures.push(Buffer.from(value, 'hex'));
    }
  }
  if (timestamp === undefined || signatures.length === 0 || signatures.length > MAX_SIGNATURES) return null;
  return { timestamp, signatures };
}

function mac(secret: string, timestamp: number, rawBody: Uint8Array): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
}

export interface VerifyInput {
  header: string | undefined;
  rawBody: Uint8Array;
  /** Every secret currently accepted; empty means none configured, and every call is refused. */
  secrets: readonly string[];
  nowSeconds: number;
  toleranceSeconds?: number;
}

/** Checks in order: a secret is configured, the header is well formed, the time is near, a MAC matches. */
export function verifyWebhookSignature(input: VerifyInput): SignatureCheck {
  if (input.secrets.length === 0) return { ok: false, reason: 'no billing webhook secret is configured; every webhook call is refused' };
  if (input.header === undefined || input.header === '') return { ok: false, reason: `the ${SIGNATURE_HEADER} header is missing` };
  const parsed = parseSignatureHeader(input.header);
  if (parsed === null) return { ok: false, reason: `the ${SIGNATURE_HEADER} header is not of the form t=<unix seconds>,v1=<hex hmac>` };
  const tolerance = input.toleranceSeconds ?? TOLERANCE_SECONDS;
  if (Math.abs(input.nowSeconds - parsed.timestamp) > tolerance) {
    return { ok: false, reason: `the signature timestamp is more than ${tolerance} s away from now` };
  }
  // Every candidate against every secret, each comparison in constant time (equal lengths: 32 bytes).
  let matched = false;
  for (const secret of input.secrets) {
    const expected = mac(secret, parsed.timestamp, input.rawBody);
    for (const candidate of parsed.signatures) if (timingSafeEqual(expected, candidate)) matched = true;
  }
  return matched ? { ok: true, timestamp: parsed.timestamp } : { ok: false, reason: 'no signature matches the body' };
}

/** A header for `rawBody` signed with each secret (senders, tests, and the docs' example). */
export function signWebhook(rawBody: Uint8Array | string, secrets: readonly string[], timestamp: number): string {
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${mac(s, timestamp, body).toString('hex')}`)].join(',');
}

/**
 * The secrets `BILLING_WEBHOOK_SECRET` holds: one, or several separated by commas or whitespace
 * while a secret rotates (new and old accepted side by side).
 */
export function webhookSecrets(configured: string | undefined): string[] {
  return (configured ?? '').split(/[\s,]+/).filter((s) => s !== '');
}
