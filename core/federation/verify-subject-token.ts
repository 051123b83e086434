import { createHash } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { SubjectRule, TrustedIssuer, TrustedIssuers } from './trusted-issuers.ts';
import { federatedSubject, matchSubject } from './subject-match.ts';

/**
 * Verifies an outside JWT `subject_token` (RFC 8693 §2.1) against the trusted-issuer file. Pure but
 * for the key resolver the caller passes (an inline JWKS, or a remote set fetched through the
 * outbound guard): the resolver is the only seam to the network.
 */
export type KeyResolverFor = (issuer: TrustedIssuer) => JWTVerifyGetKey;

/** Asymmetric algorithms only: an `HS*` token "signed" with a public key as secret is the classic confusion. */
export const SUBJECT_TOKEN_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'EdDSA', 'Ed25519'];

/** Seconds of clock skew allowed on exp, nbf and iat. */
export const CLOCK_TOLERANCE_SECONDS = 30;

export interface VerifiedSubjectToken {
  readonly issuer: TrustedIssuer;
  readonly rule: SubjectRule;
  /** The suite subject: `<iss>#<sub>`. */
  readonly subject: string;
  readonly externalSub: string;
  readonly exp: number;
  /** What the durable replay cache remembers: the `jti`, or the token's SHA-256 when it has none (Kubernetes SA tokens before 1.29). */
  readonly replayKey: string;
  readonly claims: JWTPayload;
}

export type SubjectTokenResult = { ok: true; verified: VerifiedSubjectToken } | { ok: false; reason: string };

export async function verifySubjectToken(token: string, trust: TrustedIssuers, keysFor: KeyResolverFor, now: number): Promise<SubjectTokenResult> {
  // Trust boundary: everything decoded before jwtVerify is attacker-controlled and only picks
  // which issuer's keys to try; nothing from it is believed.
  let unverified: JWTPayload;
  try {
    decodeProtectedHeader(token);
    unverified = decodeJwt(token);
  } catch {
    return { ok: false, reason: 'subject_token is not a JWT' };
  }
  const issuer = trust.issuers.find((i) => i.issuer === unverified.iss);
  if (issuer === undefined) return { ok: false, reason: 'subject_token issuer is not trusted' };
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keysFor(issuer), {
      issuer: issuer.issuer,
      audience: issuer.audience,
      algorithms: SUBJECT_TOKEN_ALGORITHMS,
      currentDate: new Date(now * 1000),
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      requiredClaims: ['exp', 'sub'],
    }));
  } catch (e) {
    return { ok: false, reason: `subject_token refused: ${describe(e)}` };
  }
  if (typeof payload.iat === 'number' && payload.iat > now + CLOCK_TOLERANCE_SECONDS) return { ok: false, reason: 'subject_token issued in the future (iat)' };
  const sub = payload.sub as string;
  const rule = matchSubject(issuer, sub);
  if (rule === undefined) return { ok: false, reason: 'subject_token subject is not mapped by any rule' };
  const replayKey =
    typeof payload.jti === 'string' && payload.jti !== ''
      ? `${issuer.issuer}#jti:${payload.jti}`
      : `${issuer.issuer}#sha256:${createHash('sha256').update(token).digest('base64url')}`;
  return {
    ok: true,
    verified: { issuer, rule, subject: federatedSubject(issuer.issuer, sub), externalSub: sub, exp: payload.exp as number, replayKey, claims: payload },
  };
}

/** jose's error codes, said plainly; never the key material or the token. */
function describe(e: unknown): string {
  const code = (e as { code?: string }).code;
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return 'expired';
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return 'bad signature';
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return 'no key of the issuer matches';
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return 'algorithm not allowed';
    case 'ERR_JWKS_TIMEOUT':
      return "the issuer's keys could not be fetched in time";
    case 'ERR_JWKS_INVALID':
      return "the issuer's key set is not a JWKS";
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return `claim ${(e as { claim?: string }).claim ?? ''} invalid`.replace('  ', ' ');
    // The outbound guard's refusal, or a failed fetch of a jwksUri: said without the address it resolved to.
    default:
      return (e as Error | undefined)?.name === 'OutboundRefusedError' ? "the issuer's keys may not be fetched (outbound policy)" : 'not verifiable';
  }
}
