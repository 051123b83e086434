/** Workload identity federation's pure rules (RFC 8693 token exchange; docs/OAUTH.md): no I/O here but the injected key resolver. */
export { parseTrustedIssuers, parseLifetime, type TrustedIssuer, type TrustedIssuers, type SubjectRule } from './trusted-issuers.ts';
export { globMatches, matchSubject, federatedSubject } from './subject-match.ts';
export { exchangeScope, exchangeLifetime } from './ceiling.ts';
export { mayActRefusal, type ActingParty } from './may-act.ts';
export {
  verifySubjectToken,
  SUBJECT_TOKEN_ALGORITHMS,
  CLOCK_TOLERANCE_SECONDS,
  type KeyResolverFor,
  type VerifiedSubjectToken,
  type SubjectTokenResult,
} from './verify-subject-token.ts';
