import type { Static } from 'typebox';
import { clipText, subjects } from '../../bus/index.ts';
import { oauthError } from '../../core/oauth/index.ts';
import { authenticateClient } from './client-auth.ts';
import type { OAuthDeps } from './deps.ts';
import type { HttpAnswer, oauthSubjects } from './subjects.ts';
import { errorAnswer } from './token-endpoint.ts';

type Answer = Static<typeof HttpAnswer>;
type EndpointRequest = Static<typeof oauthSubjects.introspect.request>;

const INACTIVE: Answer = { status: 200, headers: { 'cache-control': 'no-store' }, body: { active: false } };

/**
 * Token introspection (RFC 7662) for gateways (Envoy, Kong, NGINX): a confidential client asks whether
 * a token is live. The answer is the full capability check of every edge (signature, expiry, audience,
 * revocation), so `active` means exactly "an edge would accept it"; anything else is `{active:false}`
 * with nothing more (§2.2). Each answer is an `oauth:introspect` decision on the audit trail, like a
 * validate; it leaves once the entry is durable.
 */
export async function handleIntrospection(d: OAuthDeps, req: EndpointRequest): Promise<Answer> {
  const now = Math.floor(d.clock() / 1000);
  const auth = await authenticateClient(d.storage.pool, { params: req.form, authorization: req.authorization, audiences: [req.url, req.issuer], now });
  if (!auth.ok) {
    d.audit.record({
      subject: auth.clientId ?? 'anonymous',
      action: 'oauth:introspect',
      resource: 'token',
      result: 'deny',
      reason: clipText(`${auth.error.error}: ${auth.error.error_description}`, 1024),
    });
    return errorAnswer(auth.error, /^basic /i.test(req.authorization ?? ''));
  }
  const { client } = auth;
  if (client.tokenEndpointAuthMethod === 'none') return errorAnswer(oauthError('invalid_client', 'introspection needs a confidential client'));
  const token = req.form.token;
  if (token === undefined || token === '') return errorAnswer(oauthError('invalid_request', 'token is required'));
  if (!d.checker.revocationTrusted()) return errorAnswer(oauthError('temporarily_unavailable', 'revocation state is not current; try again shortly'));
  const result = await d.checker.check(token);
  const base = { subject: client.clientId, action: 'oauth:introspect', tenantId: client.tenantId };
  if (!result.ok) {
    await d.audit.recordAndWait({ ...base, resource: 'token', result: 'deny', reason: `inactive: ${result.error.code}` });
    return INACTIVE;
  }
  const c = result.claims;
  await d.audit.recordAndWait({ ...base, resource: `token:${c.sub}`, result: 'allow', reason: clipText(`active: ${c.jti}`, 1024) });
  return {
    status: 200,
    headers: { 'cache-control': 'no-store' },
    body: {
      active: true,
      scope: c.scope.join(' '),
      sub: c.sub,
      exp: c.exp,
      iat: c.iat,
      jti: c.jti,
      token_type: c.cnf !== undefined ? 'DPoP' : 'Bearer',
      iss: req.issuer,
      ...(c.client_id !== undefined ? { client_id: c.client_id } : {}),
      ...(c.aud !== undefined ? { aud: c.aud } : {}),
      ...(c.cnf !== undefined ? { cnf: c.cnf } : {}),
      ...(c.act !== undefined ? { act: c.act } : {}),
      ...(c.ten !== undefined ? { ten: c.ten } : {}),
    },
  };
}

/**
 * Token revocation (RFC 7009): a client revokes a token issued to it, through the suite's revocation
 * (every edge refuses it at once). An invalid or unknown token is a 200 (§2.2: nothing to do); a token
 * of another client is refused.
 */
export async function handleRevocation(d: OAuthDeps, req: EndpointRequest): Promise<Answer> {
  const now = Math.floor(d.clock() / 1000);
  const auth = await authenticateClient(d.storage.pool, { params: req.form, authorization: req.authorization, audiences: [req.url, req.issuer], now });
  if (!auth.ok) return errorAnswer(auth.error, /^basic /i.test(req.authorization ?? ''));
  const { client } = auth;
  const token = req.form.token;
  if (token === undefined || token === '') return errorAnswer(oauthError('invalid_request', 'token is required'));
  const ok: Answer = { status: 200, headers: { 'cache-control': 'no-store' }, body: {} };
  const result = await d.checker.check(token);
  if (!result.ok) return ok;
  const c = result.claims;
  const base = { subject: client.clientId, action: 'oauth:revoke', resource: `token:${c.sub}`, tenantId: client.tenantId };
  if (c.client_id !== client.clientId) {
    await d.audit.recordAndWait({ ...base, result: 'deny', reason: clipText(`${c.jti} was not issued to this client`, 1024) });
    return errorAnswer(oauthError('unauthorized_client', 'the token was not issued to this client'));
  }
  const revoked = await d.bus.request(subjects.revocationRevoke, { jti: c.jti, exp: c.exp, by: `oauth:${client.clientId}` });
  if (!revoked.ok) return errorAnswer(oauthError('temporarily_unavailable', 'the revocation could not be recorded; try again'));
  await d.audit.recordEffect({ ...base, result: 'allow', reason: clipText(`revoked ${c.jti}`, 1024) });
  return ok;
}
