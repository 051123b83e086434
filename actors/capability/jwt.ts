import { SignJWT, jwtVerify, errors, type JWTPayload } from 'jose';
import { randomUUID } from 'node:crypto';
import type { ErrorData } from '../../bus/index.ts';
import { hasDuplicateKeys, isCanonicalBase64url, tokenClaimsProblem, type HmacKeyRing } from '../../core/capability/index.ts';

export { TOKEN_CLOCK_SKEW_SECONDS } from '../../core/capability/index.ts';

/** The token type we mint and the only one we accept (RFC 9068 access-token `typ`). */
export const TOKEN_TYPE = 'at+jwt';
const ALGORITHMS = ['HS256'];

/** What a capability token says, once verified. */
export interface CapabilityClaims {
  sub: string;
  scope: string[];
  jti: string;
  iat: number;
  exp: number;
  aud?: string;
  /** Tenant the token was issued under. */
  ten?: string;
  /** True when issued with proof of an enrolled identity's private key. */
  prf?: boolean;
  /** The OAuth client it was issued to (RFC 9068 §2.2), for tokens of the token endpoint. */
  client_id?: string;
  /** The DPoP key it is bound to (RFC 9449 §6): every presentation needs a proof by that key. */
  cnf?: { jkt: string };
  /** The delegation chain (RFC 8693 §4.1). */
  act?: Record<string, unknown>;
  /** Conditions bound to scope entries (docs/MCP.md, "Conditions on a token's scope"): scope -> CEL. */
  cnd?: Record<string, string>;
}

export interface MintInput {
  sub: string;
  scope: string[];
  lifetimeSeconds: number;
  aud?: string;
  ten?: string;
  prf?: boolean;
  /** Conditions bound to scope entries: scope -> CEL, checked by the MCP gateway on each call. */
  cnd?: Record<string, string>;
  /**
   * OAuth claims (docs/OAUTH.md): `client_id` (RFC 9068 §2.2), `cnf.jkt` binding the token to a DPoP key
   * (RFC 9449 §6), `act` for delegation (RFC 8693 §4.1). Absent on tokens of `POST /auth/token`.
   */
  oauth?: { client_id?: string; cnf?: { jkt: string }; act?: Record<string, unknown> };
  /** Unix seconds; injected so that issuance is testable. */
  now: number;
}

export interface Minted {
  token: string;
  kid: string;
  jti: string;
  iat: number;
  exp: number;
}

export async function mintToken(ring: HmacKeyRing, input: MintInput): Promise<Minted> {
  const jti = randomUUID();
  const iat = input.now;
  const exp = iat + input.lifetimeSeconds;
  const claims: JWTPayload & Record<string, unknown> = { scope: input.scope };
  if (input.ten !== undefined) claims.ten = input.ten;
  if (input.prf) claims.prf = true;
  if (input.cnd !== undefined && Object.keys(input.cnd).length > 0) claims.cnd = input.cnd;
  if (input.oauth?.client_id !== undefined) claims.client_id = input.oauth.client_id;
  if (input.oauth?.cnf !== undefined) claims.cnf = input.oauth.cnf;
  if (input.oauth?.act !== undefined) claims.act = input.oauth.act;
  const builder = new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: TOKEN_TYPE, kid: ring.signing.kid })
    .setSubject(input.sub)
    .setJti(jti)
    .setIssuedAt(iat)
    .setExpirationTime(exp);
  if (input.aud !== undefined) builder.setAudience(input.aud);
  const token = await builder.sign(ring.signing.key);
  return { token, kid: ring.signing.kid, jti, iat, exp };
}

export type VerifyResult = { ok: true; claims: CapabilityClaims } | { ok: false; error: ErrorData };

export interface VerifyOptions {
  /**
   * When set, the token's `aud` must equal it (spec, Authentication rule 5), or one of them: SUITE_AUDIENCE
   * and the suite's own RFC 8707 resources (cli/runtime.ts, docs/OAUTH.md "Audiences").
   */
  audience?: string | readonly string[];
  /** Unix seconds. */
  now: number;
}

/**
 * Verify signature, header and time claims. The `alg` is pinned to HS256 and `typ` to `at+jwt`;
 * an unknown `kid` (or one shaped like a path) simply names no key. `crit` headers are refused by
 * jose since we understand none. No clock tolerance: `exp` is exclusive, `nbf` inclusive.
 */
export async function verifyToken(ring: HmacKeyRing, token: string, options: VerifyOptions): Promise<VerifyResult> {
  const segments = token.split('.');
  // Only the canonical spelling of a signature (core/capability/token-shape.ts): refused before the HMAC is computed.
  if (segments.length === 3 && !isCanonicalBase64url(segments[2] as string)) return { ok: false, error: MALFORMED };
  let payload: JWTPayload;
  try {
    const result = await jwtVerify(
      token,
      (header) => {
        const key = typeof header.kid === 'string' ? ring.byKid(header.kid) : undefined;
        if (!key) throw new errors.JWSSignatureVerificationFailed('unknown key id');
        return key.key;
      },
      {
        algorithms: ALGORITHMS,
        typ: TOKEN_TYPE,
        currentDate: new Date(options.now * 1000),
        clockTolerance: 0,
        requiredClaims: ['sub', 'jti', 'iat', 'exp'],
        ...(options.audience !== undefined ? { audience: typeof options.audience === 'string' ? options.audience : [...options.audience] } : {}),
      },
    );
    payload = result.payload;
  } catch (err) {
    return { ok: false, error: classify(err) };
  }
  // Checked once the signature holds (tokens only the secret's holder could make), then cached with it.
  if (hasDuplicateKeys(segmentJson(segments[0])) || hasDuplicateKeys(segmentJson(segments[1]))) return { ok: false, error: MALFORMED };
  if (tokenClaimsProblem(payload, options.now) !== undefined) return { ok: false, error: MALFORMED };
  return { ok: true, claims: toClaims(payload) };
}

/** One answer for every shape the issuer would never mint; which rule broke is not the presenter's business. */
const MALFORMED: ErrorData = Object.freeze({ code: 'TOKEN_INVALID', message: 'token claims are malformed' });

function segmentJson(segment: string | undefined): string {
  return Buffer.from(segment ?? '', 'base64url').toString('utf8');
}

function classify(err: unknown): ErrorData {
  // Match on jose's stable error codes, never on message text.
  const code = (err as { code?: unknown })?.code;
  if (code === 'ERR_JWT_EXPIRED') return { code: 'TOKEN_EXPIRED', message: 'token has expired' };
  if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED' && (err as { claim?: unknown }).claim === 'aud') {
    return { code: 'TOKEN_AUDIENCE_MISMATCH', message: 'token audience does not match this service' };
  }
  if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED' && (err as { claim?: unknown }).claim === 'nbf') {
    return { code: 'TOKEN_INVALID', message: 'token is not yet valid' };
  }
  return { code: 'TOKEN_INVALID', message: 'token signature or format is invalid' };
}

/** The claims of a payload `tokenClaimsProblem` accepted. */
function toClaims(p: JWTPayload): CapabilityClaims {
  const claims: CapabilityClaims = {
    sub: p.sub as string,
    scope: (p as { scope: string[] }).scope,
    jti: p.jti as string,
    iat: p.iat as number,
    exp: p.exp as number,
  };
  if (typeof p.aud === 'string') claims.aud = p.aud;
  const ten = (p as { ten?: unknown }).ten;
  if (typeof ten === 'string') claims.ten = ten;
  if ((p as { prf?: unknown }).prf === true) claims.prf = true;
  const cnd = (p as { cnd?: unknown }).cnd;
  if (cnd !== undefined) claims.cnd = { ...(cnd as Record<string, string>) };
  const { client_id: clientId, cnf, act } = p as { client_id?: unknown; cnf?: { jkt?: unknown }; act?: unknown };
  if (typeof clientId === 'string') claims.client_id = clientId;
  if (typeof cnf?.jkt === 'string') claims.cnf = { jkt: cnf.jkt };
  if (typeof act === 'object' && act !== null && !Array.isArray(act)) claims.act = act as Record<string, unknown>;
  return claims;
}
