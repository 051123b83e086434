import type { FastifyRequest } from 'fastify';
import { SuiteError } from '../../../bus/index.ts';
import { VALIDATE_ACTION, decideValidity, type TokenVerdict, type ValidityAnswer } from '../../../core/capability/index.ts';
import type { AuditSink, CapabilityVerifier } from '../../../edge-http/index.ts';

/** What the edge has of its own to validate a token: its capability check and its audit sink. */
export interface LocalValidation {
  readonly verifier: CapabilityVerifier;
  readonly audit: AuditSink;
}

/**
 * `POST /auth/token/validate` decided in the edge's process (issue 28): the token's check (HS256
 * through the verified-token cache, expiry, audience, the revocation view) and the scope match are
 * the ones the edge's own capability check runs, so the decision needs no bus hop to the token
 * actor; its audit entry is the one write, and the answer waits until it is durable, as the actor's
 * did (docs/DECISIONS.md, "Audit entries of answered decisions"). The rule is core/capability's
 * `decideValidity`, the token actor's too (it still answers bus callers: the MCP tool).
 */
export async function validateLocally(
  deps: LocalValidation,
  request: FastifyRequest,
  body: { token: string; requiredScope?: string },
): Promise<ValidityAnswer> {
  const { verifier, audit } = deps;
  if (!verifier.revocationTrusted()) throw new SuiteError('REVOCATION_UNAVAILABLE', 'revocation state is not current; refusing to validate');
  const { answer, entry } = decideValidity(await verdictOf(verifier, body.token), body.requiredScope);
  const tenantId = request.principal.tenantId;
  audit.record({ ...entry, action: VALIDATE_ACTION, ...(tenantId !== undefined ? { tenantId } : {}) });
  // Rejects with SERVICE_UNAVAILABLE when the entry cannot be made durable in time: a 503, no answer.
  await audit.durable?.();
  return answer;
}

async function verdictOf(verifier: CapabilityVerifier, token: string): Promise<TokenVerdict> {
  // Not verifyBearer: a stalled trail is no reason to refuse the validation while its entry can
  // still be made durable (the journal); the wait below refuses it (503) when it cannot.
  const verified = await verifier.checkToken(token);
  if (!verified.ok) return { ok: false, code: verified.error.code };
  const { sub, scope, exp, jti } = verified.principal;
  // A verified bearer token's principal always carries its claims (cli/edge.ts, edgeVerifier).
  if (sub === undefined || exp === undefined || jti === undefined) throw new Error('a verified token without sub, exp or jti');
  return { ok: true, claims: { sub, scope, exp, jti } };
}
