/**
 * What a capability token must be beyond a good signature (issue 25, finding 7; docs/TOKENS-ISSUE.md,
 * "What a token must be"): the shape the issuer mints, and nothing else. They need the secret to
 * forge, so these are defence in depth: a token service refuses what it would never have issued.
 */
import { isNormalSubject } from '../subject/index.ts';
import { MAX_LIFETIME_SECONDS } from './duration.ts';
import { isValidScope } from './scope.ts';

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * Whether `segment` is the one canonical base64url spelling of its bytes (RFC 4648 §5, no padding,
 * RFC 7515 §2): the unused low bits of the last character zero, no `=`. Decoders ignore those bits,
 * so each signature had four spellings that all verified; a token has exactly one now.
 */
export function isCanonicalBase64url(segment: string): boolean {
  return BASE64URL.test(segment) && Buffer.from(segment, 'base64url').toString('base64url') === segment;
}

/**
 * Whether a JSON text (already accepted by JSON.parse) has an object with two equal member names.
 * JSON.parse keeps the last, so `{"scope":["read:x"],"scope":["*"]}` reads as `*` to us and may read
 * as `read:x` to another parser; RFC 7515 §5.2 and RFC 7519 §4 say to reject such a JWS. Names are
 * compared decoded (`"a"` and `"\u0061"` are one name). Hand-written: a scan of about thirty lines,
 * against a streaming parser for one check (docs/TOKENS-ISSUE.md says why).
 */
export function hasDuplicateKeys(json: string): boolean {
  // One entry per open container: the names seen in an object, null for an array.
  const open: Array<Set<string> | null> = [];
  let expectName = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const end = endOfString(json, i);
      const names = open.at(-1);
      if (expectName && names) {
        const name = JSON.parse(json.slice(i, end + 1)) as string;
        if (names.has(name)) return true;
        names.add(name);
        expectName = false;
      }
      i = end;
    } else if (c === 0x7b /* { */) {
      open.push(new Set());
      expectName = true;
    } else if (c === 0x5b /* [ */) {
      open.push(null);
      expectName = false;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      open.pop();
    } else if (c === 0x2c /* , */) {
      expectName = open.at(-1) instanceof Set;
    }
  }
  return false;
}

/** Index of the quote closing the string that opens at `start`. */
function endOfString(json: string, start: number): number {
  for (let i = start + 1; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 0x5c /* \ */) i++;
    else if (c === 0x22) return i;
  }
  return json.length - 1;
}

/** How far ahead of the verifier's clock a token's `iat` may be (issuers' clocks differ a little). */
export const TOKEN_CLOCK_SKEW_SECONDS = 60;

/**
 * Why a verified payload is not one the issuer mints, or undefined: `sub` a non-empty subject in its
 * stored form (core/subject), `jti` non-empty, `iat`/`exp` integers (RFC 7519 NumericDate, whole
 * seconds as we mint them), `iat` at most the skew ahead, lifetime `exp - iat` positive and at most
 * MAX_LIFETIME_SECONDS, `scope` an array of well-formed scopes, `ten` (when present) a non-empty
 * string, `aud` a string, `prf` a boolean, `cnd` an object of scope -> condition text.
 */
export function tokenClaimsProblem(p: Readonly<Record<string, unknown>>, now: number): string | undefined {
  const { sub, jti, iat, exp, scope, ten, aud, prf, cnd } = p;
  if (typeof sub !== 'string' || !isNormalSubject(sub)) return 'sub is not a subject the issuer mints';
  if (typeof jti !== 'string' || jti === '') return 'jti is missing';
  if (!Number.isSafeInteger(iat) || !Number.isSafeInteger(exp)) return 'iat and exp must be whole seconds';
  if ((iat as number) > now + TOKEN_CLOCK_SKEW_SECONDS) return 'iat is in the future';
  const lifetime = (exp as number) - (iat as number);
  if (lifetime <= 0 || lifetime > MAX_LIFETIME_SECONDS) return 'lifetime is outside what the issuer mints';
  if (!Array.isArray(scope) || !scope.every((s) => typeof s === 'string' && isValidScope(s))) return 'scope is malformed';
  if (ten !== undefined && (typeof ten !== 'string' || ten === '')) return 'ten must be a string';
  if (aud !== undefined && typeof aud !== 'string') return 'aud must be a string';
  if (prf !== undefined && typeof prf !== 'boolean') return 'prf must be a boolean';
  if (
    cnd !== undefined &&
    (typeof cnd !== 'object' || cnd === null || Array.isArray(cnd) || !Object.entries(cnd).every(([k, v]) => isValidScope(k) && typeof v === 'string'))
  )
    return 'cnd must map scopes to conditions';
  return undefined;
}
