import type { Static } from 'typebox';
import { clipText } from '../../bus/index.ts';
import { findIdentity, insertIssuedToken, lockSubject } from '../../storage/index.ts';
import { mintToken } from '../../actors/capability/index.ts';
import { normaliseSubject } from '../../core/subject/index.ts';
import { oauthError, oauthStatus, type OAuthError } from '../../core/oauth/index.ts';
import { authenticateClient } from './client-auth.ts';
import { verifyDpopProof } from './dpop.ts';
import { GRANTS, type GrantModule, type TokenToMint } from './grants/index.ts';
import { newFamilyId, storeRefreshToken } from './refresh.ts';
import { insertGrantLog } from './grant-log.ts';
import type { OAuthDeps } from './deps.ts';
import type { HttpAnswer, oauthSubjects } from './subjects.ts';
import type { OAuthClient } from './clients.ts';

type EndpointRequest = Static<typeof oauthSubjects.token.request>;
type Answer = Static<typeof HttpAnswer>;

/** Refresh tokens live a day past each use; a family unused that long must start over. */
const REFRESH_LIFETIME_SECONDS = 86_400;
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

/** An RFC 6749 §5.2 answer; `invalid_client` from Basic credentials carries the §5.2 challenge. */
export function errorAnswer(error: OAuthError, basic = false): Answer {
  const status = oauthStatus(error.error);
  return {
    status,
    body: { ...error },
    // §5.2: the challenge answers a client that authenticated through the Authorization header only.
    headers: { ...NO_STORE, ...(status === 401 && basic ? { 'www-authenticate': 'Basic realm="oauth"' } : {}) },
  };
}

/**
 * `POST /oauth/token` (RFC 6749 §3.2): the part every grant shares (grants/README.md). Every refusal is
 * an `oauth:token` deny entry and a counted outcome; a grant's success is minted, recorded in
 * `issued_tokens`, and answered only once its allow entry is durable (as `POST /auth/token`).
 */
export async function handleTokenRequest(deps: OAuthDeps, req: EndpointRequest): Promise<Answer> {
  const now = Math.floor(deps.clock() / 1000);
  const grantType = req.form.grant_type ?? '';
  const metric = GRANTS.some((g) => g.type === grantType) ? grantType : 'other';
  const refuse = (error: OAuthError, who: string, tenantId: string | null = null, basic = false): Answer => {
    // A device's polls while the person decides are the protocol working, not refusals: counted, not audited.
    if (error.error !== 'authorization_pending' && error.error !== 'slow_down')
      deps.audit.record({
        subject: who,
        action: 'oauth:token',
        resource: `grant:${clip(grantType, 100)}`,
        result: 'deny',
        reason: clipText(`${error.error}: ${error.error_description}`, 1024),
        tenantId,
      });
    deps.counter.inc({ grant_type: metric, outcome: error.error });
    // The recent-grants view (GET /oauth/grants) is a convenience beside the audit entry: not waited for.
    void insertGrantLog(deps.storage.pool, {
      grantType: grantType === '' ? '(none)' : grantType,
      clientId: who,
      sub: who,
      outcome: 'refused',
      error: error.error,
      tenantId,
      scope: (req.form.scope ?? '').split(' ').filter((s) => s !== ''),
    }).catch((err: unknown) => deps.logger.warn({ err }, 'could not log a refused grant for GET /oauth/grants'));
    return errorAnswer(error, basic);
  };
  if (grantType === '') return refuse(oauthError('invalid_request', 'grant_type is required'), req.form.client_id ?? 'anonymous');
  const auth = await authenticateClient(deps.storage.pool, {
    params: req.form,
    authorization: req.authorization,
    audiences: [req.url, req.issuer],
    now,
  });
  if (!auth.ok) return refuse(auth.error, auth.clientId ?? req.form.client_id ?? 'anonymous', null, /^basic /i.test(req.authorization ?? ''));
  const { client } = auth;
  const tenant = client.tenantId;
  const grant = GRANTS.find((g) => g.type === grantType);
  if (grant === undefined) return refuse(oauthError('unsupported_grant_type', `grant_type ${clip(grantType, 100)} is not supported`), client.clientId, tenant);
  const allowed = grantAllowed(grant, client);
  if (allowed !== undefined) return refuse(allowed, client.clientId, tenant);
  let dpopJkt: string | undefined;
  if (req.dpop !== undefined) {
    const proof = await verifyDpopProof(deps.storage.pool, req.dpop, { htm: 'POST', htu: req.url, now });
    if (!proof.ok) return refuse(oauthError('invalid_dpop_proof', proof.problem), client.clientId, tenant);
    dpopJkt = proof.jkt;
  }
  const outcome = await grant.handle({
    params: req.form,
    client,
    identity: auth.identity,
    dpopJkt,
    issuer: req.issuer,
    tokenEndpoint: req.url,
    now,
    deps: { bus: deps.bus, storage: deps.storage, logger: deps.logger, checker: deps.checker, federation: deps.federation },
  });
  if (!outcome.ok) return refuse(outcome.error, client.clientId, tenant);
  const subject = normaliseSubject(outcome.mint.sub);
  if (!subject.ok) return refuse(oauthError('invalid_grant', `the token's subject ${subject.problem}`), client.clientId, tenant);
  const minted = await mint(deps, { ...outcome.mint, sub: subject.subject }, client, dpopJkt, now, grantType);
  if (!minted.ok) return refuse(oauthError('invalid_grant', minted.problem), client.clientId, tenant);
  const { issued } = minted;
  await deps.audit.recordAndWait({
    subject: client.clientId,
    action: 'oauth:token',
    resource: `grant:${grantType}`,
    result: 'allow',
    reason: clipText(
      `issued ${issued.jti} to ${subject.subject}${dpopJkt !== undefined ? ' (DPoP-bound)' : ''}${outcome.note !== undefined ? `, ${outcome.note}` : ''} with scope ${outcome.mint.scope.join(' ')}`,
      1024,
    ),
    tenantId: outcome.mint.tenantId ?? tenant,
  });
  deps.counter.inc({ grant_type: metric, outcome: 'issued' });
  return {
    status: 200,
    headers: NO_STORE,
    body: {
      access_token: issued.token,
      token_type: dpopJkt !== undefined ? 'DPoP' : 'Bearer',
      expires_in: issued.exp - issued.iat,
      scope: outcome.mint.scope.join(' '),
      ...(issued.refreshToken !== undefined ? { refresh_token: issued.refreshToken } : {}),
      issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    },
  };
}

function grantAllowed(grant: GrantModule, client: OAuthClient): OAuthError | undefined {
  if (client.tokenEndpointAuthMethod === 'none' && !grant.publicClients) {
    return oauthError('unauthorized_client', `a public client may not use ${grant.type}`);
  }
  if (!client.grantTypes.includes(grant.type)) return oauthError('unauthorized_client', `this client is not registered for ${grant.type}`);
  return undefined;
}

/** Mint and record the access token, and the rotated or new refresh token, in one transaction. */
async function mint(deps: OAuthDeps, m: TokenToMint, client: OAuthClient, jkt: string | undefined, now: number, grantType: string) {
  const aud = m.aud ?? deps.audience;
  return deps.storage.pool.transaction(async (tx) => {
    if (m.proven) {
      // As POST /issue (actors/identities/issuance.ts): the subject's lock first, then its status, so a
      // suspension either waits for this token's row or is seen here. Refused, never thrown (slonik).
      await lockSubject(tx, m.sub, 'shared');
      const identity = await findIdentity(tx, m.sub);
      if (identity === null || identity.status !== 'active')
        return { ok: false as const, problem: `identity "${m.sub}" is suspended or no longer enrolled; no new tokens are issued in its name` };
    }
    const minted = await mintToken(deps.ring, {
      sub: m.sub,
      scope: [...m.scope],
      lifetimeSeconds: m.lifetimeSeconds,
      now,
      ...(aud !== undefined ? { aud } : {}),
      ...(m.tenantId !== undefined ? { ten: m.tenantId } : {}),
      ...(m.proven ? { prf: true } : {}),
      oauth: { client_id: client.clientId, ...(jkt !== undefined ? { cnf: { jkt } } : {}), ...(m.act !== undefined ? { act: { ...m.act } } : {}) },
    });
    // Before any write: a refusal here returns (slonik commits), so nothing may be written yet.
    if (m.recordIssued !== undefined && !(await m.recordIssued(tx, minted.jti)))
      return { ok: false as const, problem: 'the authorization code was presented again while this token was being issued; nothing is issued' };
    await insertIssuedToken(tx, {
      jti: minted.jti,
      sub: m.sub,
      scope: [...m.scope],
      tenantId: m.tenantId ?? null,
      kid: minted.kid,
      iat: minted.iat,
      exp: minted.exp,
      proven: m.proven === true,
    });
    await insertGrantLog(tx, { grantType, clientId: client.clientId, sub: m.sub, outcome: 'granted', scope: m.scope, tenantId: m.tenantId ?? null });
    let refreshToken: string | undefined;
    if (m.refresh !== undefined) {
      refreshToken = await storeRefreshToken(tx, {
        familyId: m.refresh === 'new' ? newFamilyId() : m.refresh.familyId,
        clientId: client.clientId,
        sub: m.sub,
        scope: [...m.scope],
        aud: aud ?? null,
        tenantId: m.tenantId ?? null,
        // A public client's refresh tokens are bound to its DPoP key (RFC 9449 §5); a confidential one authenticates anyway.
        jkt: client.tokenEndpointAuthMethod === 'none' ? (jkt ?? null) : null,
        claims: { ...(m.act !== undefined ? { act: m.act } : {}), ...(m.proven ? { prf: true } : {}) },
        lifetimeSeconds: m.lifetimeSeconds,
        accessJti: minted.jti,
        expiresAt: now + REFRESH_LIFETIME_SECONDS,
      });
    }
    return { ok: true as const, issued: { ...minted, refreshToken } };
  });
}

const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n) : s);
