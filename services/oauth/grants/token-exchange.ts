import { exchangeLifetime, exchangeScope, mayActRefusal, verifySubjectToken } from '../../../core/federation/index.ts';
import { oauthError, parseScopeParam, scopeBeyond, TOKEN_EXCHANGE_GRANT, type OAuthError } from '../../../core/oauth/index.ts';
import { firstUseOfJti } from '../replay.ts';
import type { GrantModule, GrantRequest, GrantOutcome } from './types.ts';
import { resourceOf } from './resource.ts';

const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
/** Outside JWTs: a Kubernetes service-account token, a CI OIDC token, a JWT-SVID, an ID token. */
const JWT_TYPES = new Set(['urn:ietf:params:oauth:token-type:jwt', 'urn:ietf:params:oauth:token-type:id_token']);
const MAX_TOKEN_LENGTH = 16_384;

/** Who a presented token names, once verified: a suite token's claims, or an outside subject. */
type Party =
  | { kind: 'suite'; sub: string; scope: string[]; exp: number; tenantId?: string; proven: boolean; act?: Record<string, unknown>; jkt?: string }
  | {
      kind: 'federated';
      sub: string;
      externalSub: string;
      ceiling: readonly string[];
      maxLifetime: number;
      exp: number;
      issuer: string;
      replayKey: string;
      mayAct: unknown;
    };

const refuse = (error: OAuthError): GrantOutcome => ({ ok: false, error });

/**
 * `urn:ietf:params:oauth:grant-type:token-exchange` (RFC 8693; docs/OAUTH.md "Token exchange"):
 * - an outside JWT (`subject_token_type` jwt or id_token) from an issuer of `SUITE_OAUTH_TRUSTED_ISSUERS`
 *   becomes a suite token for `<iss>#<sub>` within the matching rule's scope and lifetime (workload
 *   identity federation); each subject token is exchanged once (its `jti`, else its digest, durably);
 * - a suite access token becomes a narrower one (attenuation: scope within its own, another audience,
 *   never a longer life);
 * - an `actor_token` (suite or outside) is recorded as the `act` claim (delegation, §4.1), the previous
 *   actors nested inside; an outside subject token's `may_act` (§4.4) names the only actor allowed.
 * The tokens are the credentials here, so a public client may use it (a workload has no secret); the
 * client's registered scope, when it has one, is a second ceiling.
 */
export const tokenExchangeGrant: GrantModule = {
  type: TOKEN_EXCHANGE_GRANT,
  publicClients: true,
  async handle(request) {
    const { params, client, now } = request;
    const requested = params.requested_token_type;
    if (requested !== undefined && requested !== ACCESS_TOKEN_TYPE) {
      return refuse(oauthError('invalid_request', `requested_token_type must be ${ACCESS_TOKEN_TYPE}`));
    }
    const subject = await presentedParty(request, params.subject_token, params.subject_token_type, 'subject');
    if ('error' in subject) return refuse(subject);
    let actor: Party | undefined;
    if (params.actor_token !== undefined || params.actor_token_type !== undefined) {
      const verified = await presentedParty(request, params.actor_token, params.actor_token_type, 'actor');
      if ('error' in verified) return refuse(verified);
      actor = verified;
      if (subject.kind === 'federated') {
        const acting =
          actor.kind === 'suite'
            ? { subject: actor.sub, issuer: request.issuer, externalSub: actor.sub }
            : { subject: actor.sub, issuer: actor.issuer, externalSub: actor.externalSub };
        const refusal = mayActRefusal(subject.mayAct, subject.issuer, acting);
        if (refusal !== undefined) return refuse(oauthError('invalid_grant', refusal));
      }
    }
    const parsed = parseScopeParam(params.scope);
    if (!parsed.ok) return refuse(oauthError('invalid_scope', parsed.problem));
    const ceiling = subject.kind === 'suite' ? subject.scope : subject.ceiling;
    const scope = exchangeScope(parsed.scope, ceiling);
    if (!scope.ok) {
      const whose = subject.kind === 'suite' ? "the subject token's own scope" : "the trusted-issuer rule's ceiling";
      return refuse(oauthError('invalid_scope', `scope "${scope.beyond}" is beyond ${whose}`));
    }
    const beyondClient = client.scope.length > 0 ? scopeBeyond(client.scope, scope.scope) : undefined;
    if (beyondClient !== undefined) return refuse(oauthError('invalid_scope', `scope "${beyondClient}" is beyond what this client was registered for`));
    const target = audienceOf(params);
    if (!target.ok) return refuse(target.error);
    const tenantId = subject.kind === 'suite' ? subject.tenantId : (client.tenantId ?? undefined);
    if (subject.kind === 'suite' && client.tenantId !== null && subject.tenantId !== client.tenantId) {
      return refuse(oauthError('invalid_grant', 'the subject token belongs to another tenant than this client'));
    }
    const lifetime = subject.kind === 'suite' ? Math.max(1, subject.exp - now) : exchangeLifetime(subject.maxLifetime, subject.exp, now);
    const priorAct = subject.kind === 'suite' ? subject.act : undefined;
    const act = actor !== undefined ? { sub: actor.sub, ...(priorAct !== undefined ? { act: priorAct } : {}) } : priorAct;
    // Spent last, once everything else holds: a request refused for its scope may be sent again corrected.
    if (subject.kind === 'federated' && !(await firstUseOfJti(request.deps.storage.pool, 'subject-token', subject.replayKey, subject.exp))) {
      return refuse(oauthError('invalid_grant', 'subject_token was already exchanged (replay)'));
    }
    const from = subject.kind === 'suite' ? `suite token of ${subject.sub}` : `token of ${subject.issuer}`;
    return {
      ok: true,
      note: `exchanged a ${from}${actor !== undefined ? `, acted for by ${actor.sub}` : ''}`,
      mint: {
        sub: subject.sub,
        scope: scope.scope,
        lifetimeSeconds: lifetime,
        ...(target.aud !== undefined ? { aud: target.aud } : {}),
        ...(tenantId !== undefined ? { tenantId } : {}),
        ...(subject.kind === 'suite' && subject.proven ? { proven: true } : {}),
        ...(act !== undefined ? { act } : {}),
      },
    };
  },
};

/** `resource` (RFC 8707) or `audience` (RFC 8693 §2.1, a logical name); both at once is ambiguous. */
function audienceOf(params: Readonly<Record<string, string>>): { ok: true; aud: string | undefined } | { ok: false; error: OAuthError } {
  if (params.audience === undefined) return resourceOf(params);
  if (params.resource !== undefined) return { ok: false, error: oauthError('invalid_target', 'send resource or audience, not both') };
  if (params.audience === '' || params.audience.length > 256) return { ok: false, error: oauthError('invalid_target', 'audience must be 1 to 256 characters') };
  return { ok: true, aud: params.audience };
}

async function presentedParty(
  request: GrantRequest,
  token: string | undefined,
  type: string | undefined,
  role: 'subject' | 'actor',
): Promise<Party | OAuthError> {
  if (token === undefined || token === '' || token.length > MAX_TOKEN_LENGTH)
    return oauthError('invalid_request', `${role}_token is required (at most ${MAX_TOKEN_LENGTH} characters)`);
  if (type === ACCESS_TOKEN_TYPE) return suiteParty(request, token, role);
  if (type !== undefined && JWT_TYPES.has(type)) return federatedParty(request, token, role);
  return oauthError(
    'invalid_request',
    `${role}_token_type must be ${ACCESS_TOKEN_TYPE} (a suite token) or urn:ietf:params:oauth:token-type:jwt (a trusted issuer's)`,
  );
}

/** A suite token: the edge's own check (signature, expiry, audience, revocation); a DPoP-bound one needs this request's proof by its key. */
async function suiteParty(request: GrantRequest, token: string, role: 'subject' | 'actor'): Promise<Party | OAuthError> {
  const checked = await request.deps.checker.check(token);
  if (!checked.ok) return oauthError('invalid_grant', `${role}_token refused: ${checked.error.message}`);
  const c = checked.claims;
  // A bound token exchanged without its key would shed the binding (RFC 9449 §6 holds for every use).
  if (c.cnf !== undefined && c.cnf.jkt !== request.dpopJkt) return oauthError('invalid_grant', `${role}_token is DPoP-bound: send a DPoP proof by its key`);
  return {
    kind: 'suite',
    sub: c.sub,
    scope: c.scope,
    exp: c.exp,
    proven: c.prf === true,
    ...(c.ten !== undefined ? { tenantId: c.ten } : {}),
    ...(c.act !== undefined ? { act: c.act } : {}),
    ...(c.cnf !== undefined ? { jkt: c.cnf.jkt } : {}),
  };
}

/**
 * An outside JWT, verified against the trusted-issuer file (core/federation, jose). A subject token is
 * spent by its exchange (handle(), replay refused on every replica); an actor token only names who acts.
 */
async function federatedParty(request: GrantRequest, token: string, role: 'subject' | 'actor'): Promise<Party | OAuthError> {
  const federation = request.deps.federation;
  if (federation === undefined) return oauthError('invalid_grant', `${role}_token issuer is not trusted (no SUITE_OAUTH_TRUSTED_ISSUERS)`);
  const result = await verifySubjectToken(token, federation.trust, federation.keysFor, request.now);
  if (!result.ok) return oauthError('invalid_grant', role === 'subject' ? result.reason : result.reason.replace(/^subject_token/, 'actor_token'));
  const v = result.verified;
  return {
    kind: 'federated',
    sub: v.subject,
    externalSub: v.externalSub,
    ceiling: v.rule.scope,
    maxLifetime: v.rule.maxLifetimeSeconds,
    exp: v.exp,
    issuer: v.issuer.issuer,
    replayKey: v.replayKey,
    mayAct: v.claims.may_act,
  };
}
