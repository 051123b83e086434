import { isValidScope } from '../capability/index.ts';

/**
 * The trusted-issuer file of workload identity federation (SUITE_OAUTH_TRUSTED_ISSUERS; RFC 8693
 * token exchange, docs/OAUTH.md): which outside issuers' JWTs the suite accepts as `subject_token`,
 * and what each matching subject may be given. Parsed once at start; an error names the entry so a
 * bad file stops the start with a message an operator can act on.
 */
export interface SubjectRule {
  /** Glob on the token's `sub` (subject-match.ts): `*` any run of characters, `?` one. */
  readonly match: string;
  /** The ceiling: an exchanged token's scope is within this. */
  readonly scope: readonly string[];
  readonly maxLifetimeSeconds: number;
}

export interface TrustedIssuer {
  readonly issuer: string;
  /** Exactly one of these: a JWKS given inline, or an https URL fetched through the outbound guard. */
  readonly jwks?: { readonly keys: readonly Record<string, unknown>[] };
  readonly jwksUri?: string;
  /** The `aud` the issuer's tokens must carry for this suite. */
  readonly audience: string;
  readonly subjects: readonly SubjectRule[];
}

export interface TrustedIssuers {
  readonly issuers: readonly TrustedIssuer[];
}

export type ParseResult = { ok: true; config: TrustedIssuers } | { ok: false; message: string };

/** `90s`, `15m`, `1h`, `1d` (a bare number is seconds). Longer than a day is refused: these are workload tokens. */
export function parseLifetime(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value <= 86_400 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const m = /^([1-9][0-9]{0,5})(s|m|h|d)?$/.exec(value);
  if (m === null) return undefined;
  const seconds = Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86_400 }[(m[2] ?? 's') as 's' | 'm' | 'h' | 'd'];
  return seconds <= 86_400 ? seconds : undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * https, or http to a loopback host (a local issuer in development and tests; RFC 8252 §8.3's
 * reasoning): anything else would let a network attacker swap the keys.
 */
function jwksUrlAllowed(value: string): boolean {
  try {
    const url = new URL(value);
    if (url.protocol === 'https:') return true;
    return url.protocol === 'http:' && (url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(url.hostname));
  } catch {
    return false;
  }
}
function parseSubject(raw: unknown, where: string): SubjectRule | string {
  if (!isObject(raw)) return `${where}: must be an object`;
  const { match, scope, maxLifetime } = raw;
  if (typeof match !== 'string' || match === '' || match.length > 512) return `${where}.match: a non-empty glob on sub (at most 512 characters)`;
  if (!Array.isArray(scope) || scope.length === 0) return `${where}.scope: a non-empty list of scopes`;
  const bad = scope.find((s) => typeof s !== 'string' || !isValidScope(s));
  if (bad !== undefined) return `${where}.scope: ${JSON.stringify(bad)} is not a valid scope`;
  const maxLifetimeSeconds = parseLifetime(maxLifetime ?? '1h');
  if (maxLifetimeSeconds === undefined) return `${where}.maxLifetime: a duration like "15m" or "1h", at most 1d`;
  return { match, scope: [...new Set(scope as string[])], maxLifetimeSeconds };
}

function parseIssuer(raw: unknown, where: string): TrustedIssuer | string {
  if (!isObject(raw)) return `${where}: must be an object`;
  const { issuer, jwks, jwksUri, audience, subjects } = raw;
  if (typeof issuer !== 'string' || issuer === '') return `${where}.issuer: a non-empty string (the tokens' iss, exactly)`;
  const named = `${where} (${issuer})`;
  if ((jwks === undefined) === (jwksUri === undefined)) return `${named}: exactly one of jwks and jwksUri`;
  if (jwks !== undefined && !(isObject(jwks) && Array.isArray(jwks.keys) && jwks.keys.length > 0 && jwks.keys.every(isObject))) {
    return `${named}.jwks: a JWK Set ({"keys":[…]}) with at least one key`;
  }
  if (jwks !== undefined && (jwks.keys as Record<string, unknown>[]).some((k) => 'd' in k)) {
    return `${named}.jwks: holds a private key (a "d" member); give the public keys only`;
  }
  if (jwksUri !== undefined && (typeof jwksUri !== 'string' || !jwksUrlAllowed(jwksUri)))
    return `${named}.jwksUri: an https URL (http only to a loopback host)`;
  if (typeof audience !== 'string' || audience === '') return `${named}.audience: a non-empty string (the aud the tokens must carry)`;
  if (!Array.isArray(subjects) || subjects.length === 0) return `${named}.subjects: a non-empty list`;
  const rules: SubjectRule[] = [];
  for (const [i, s] of subjects.entries()) {
    const rule = parseSubject(s, `${named}.subjects[${i}]`);
    if (typeof rule === 'string') return rule;
    rules.push(rule);
  }
  return {
    issuer,
    ...(jwks !== undefined ? { jwks: { keys: (jwks as { keys: Record<string, unknown>[] }).keys } } : { jwksUri: jwksUri as string }),
    audience,
    subjects: rules,
  };
}

/** Parses the file's text. Two entries for one issuer are refused: which one applies would be a guess. */
export function parseTrustedIssuers(text: string): ParseResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, message: `not JSON: ${(e as Error).message}` };
  }
  if (!isObject(raw) || !Array.isArray(raw.issuers)) return { ok: false, message: 'must be {"issuers":[…]}' };
  const issuers: TrustedIssuer[] = [];
  for (const [i, entry] of raw.issuers.entries()) {
    const parsed = parseIssuer(entry, `issuers[${i}]`);
    if (typeof parsed === 'string') return { ok: false, message: parsed };
    if (issuers.some((x) => x.issuer === parsed.issuer)) return { ok: false, message: `issuers[${i}] (${parsed.issuer}): the issuer is listed twice` };
    issuers.push(parsed);
  }
  return { ok: true, config: { issuers } };
}
