import type { Static } from 'typebox';
import { clipText, type Caller } from '../../bus/index.ts';
import { scopeGrants } from '../../core/capability/index.ts';
import {
  challengeProblem,
  consentHeaders,
  csrfMatches,
  csrfToken,
  narrowedConsent,
  normaliseUserCode,
  renderConsentPage,
  renderNoticePage,
  renderUserCodePage,
} from '../../core/authorization/index.ts';
import { DEVICE_CODE_GRANT, oauthError, parseScopeParam, redirectUriMatches, scopeBeyond, type OAuthError } from '../../core/oauth/index.ts';
import { findClient, type OAuthClient } from './clients.ts';
import { csrfSecretOf, decide, findAuthorization, findByUserCode, insertCodeRequest, type Authorization } from './authorizations.ts';
import { resourceOf } from './grants/resource.ts';
import type { OAuthDeps } from './deps.ts';
import type { oauthSubjects, PageAnswer } from './subjects.ts';

type Page = Static<typeof PageAnswer>;
type AuthorizeRequest = Static<typeof oauthSubjects.authorize.request>;
type ConsentRequest = Static<typeof oauthSubjects.consent.request>;
type DevicePageRequest = Static<typeof oauthSubjects.devicePage.request>;

/** The longest access token a person may approve (the form offers this and shorter). */
export const PERSON_TOKEN_LIFETIME_SECONDS = 3600;
export const CONSENT_SCOPE = 'oauth:consent';
export const CONSENT_PATH = '/oauth/consent';
export const DEVICE_PAGE_PATH = '/oauth/device';

const html = (status: number, body: string, redirectTo?: string): Page => ({ status, headers: consentHeaders(redirectTo), html: body });
const jsonError = (status: number, error: OAuthError): Page => ({ status, headers: { 'cache-control': 'no-store' }, body: { ...error } });

/** A redirect back to the client (RFC 6749 §4.1.2), with `iss` (RFC 9207) so the client knows who answered. */
function redirectBack(uri: string, params: Record<string, string | undefined>, issuer: string): Page {
  const url = new URL(uri);
  for (const [k, v] of Object.entries({ ...params, iss: issuer })) if (v !== undefined) url.searchParams.set(k, v);
  return { status: 303, headers: { location: url.toString(), 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' } };
}

/**
 * The scope a client asks a person for (code and device grants alike): parsed, within the client's
 * ceiling when it registered one (a public client registered openly has none: the person decides),
 * and not empty. `resource` (RFC 8707) checked as the token endpoint does.
 */
export function requestedScope(
  client: OAuthClient,
  params: Readonly<Record<string, string>>,
): { ok: true; scope: string[]; resource: string | undefined } | { ok: false; error: OAuthError } {
  const parsed = parseScopeParam(params.scope);
  if (!parsed.ok) return { ok: false, error: oauthError('invalid_scope', parsed.problem) };
  const scope = parsed.scope.length > 0 ? parsed.scope : client.scope;
  if (scope.length === 0) return { ok: false, error: oauthError('invalid_scope', 'no scope asked, and the client registered none') };
  if (client.scope.length > 0) {
    const beyond = scopeBeyond(client.scope, scope);
    if (beyond !== undefined) return { ok: false, error: oauthError('invalid_scope', `scope "${beyond}" is beyond what this client was registered for`) };
  }
  const resource = resourceOf(params);
  if (!resource.ok) return { ok: false, error: resource.error };
  return { ok: true, scope, resource: resource.aud };
}

/** A refusal of the person-facing flow: an `oauth:authorize` or `oauth:consent` deny entry and a counted outcome. */
function refusal(deps: OAuthDeps, action: string, subject: string, grantType: string, error: OAuthError, tenantId: string | null = null): void {
  deps.audit.record({
    subject,
    action,
    resource: `grant:${grantType}`,
    result: 'deny',
    reason: clipText(`${error.error}: ${error.error_description}`, 1024),
    tenantId,
  });
  deps.counter.inc({ grant_type: grantType, outcome: error.error });
}

/**
 * A consent page asked for inside a frame (the browser's Sec-Fetch-Dest says so): refused and audited
 * before anything is shown. The headers (X-Frame-Options, frame-ancestors) make the browser refuse it
 * anyway; this also puts the attempt on the trail.
 */
function framedRefusal(deps: OAuthDeps, who: string, grant: string): Page {
  refusal(deps, 'oauth:authorize', clipText(who, 200), grant, oauthError('access_denied', 'the consent page was requested inside a frame (clickjacking)'));
  return html(403, renderNoticePage('Open this page on its own', 'The consent page cannot be shown inside another page.'));
}

/**
 * `GET /oauth/authorize` (RFC 6749 §4.1.1, OAuth 2.1): the client and its redirect URI first, answered
 * in the page itself when wrong (a redirect to an unchecked URI is an open redirector, RFC 9700
 * §4.11); every other problem is redirected back with `state`. A request that passes is stored and
 * the consent page shown.
 */
export async function handleAuthorize(deps: OAuthDeps, req: AuthorizeRequest): Promise<Page> {
  const q = req.query;
  const grant = 'authorization_code';
  const clientId = q.client_id;
  const refuseHere = (error: OAuthError, who = clientId ?? 'anonymous') => {
    refusal(deps, 'oauth:authorize', clipText(who, 200), grant, error);
    return jsonError(400, error);
  };
  if (req.framed === true) return framedRefusal(deps, clientId ?? 'anonymous', grant);
  if (clientId === undefined) return refuseHere(oauthError('invalid_request', 'client_id is required'));
  const client = clientId.length <= 256 ? await findClient(deps.storage.pool, clientId) : null;
  if (client === null) return refuseHere(oauthError('invalid_client', 'unknown client_id'));
  if (q.redirect_uri === undefined) return refuseHere(oauthError('invalid_request', 'redirect_uri is required'));
  if (!redirectUriMatches(client.redirectUris, q.redirect_uri))
    return refuseHere(oauthError('invalid_request', 'redirect_uri is not one this client registered'));
  const back = (error: OAuthError) => {
    refusal(deps, 'oauth:authorize', client.clientId, grant, error, client.tenantId);
    return redirectBack(q.redirect_uri!, { error: error.error, error_description: error.error_description, state: q.state }, req.issuer);
  };
  if (q.response_type !== 'code') return back(oauthError('unsupported_response_type', 'response_type must be code'));
  if (!client.grantTypes.includes(grant)) return back(oauthError('unauthorized_client', 'this client is not registered for authorization_code'));
  // RFC 9700 §4.7.1 lets PKCE stand in for state; this server asks for both (issue 32) and returns state unchanged.
  if (q.state === undefined) return back(oauthError('invalid_request', 'state is required'));
  if (q.state.length > 1024) return back(oauthError('invalid_request', 'state is longer than 1024 characters'));
  const pkce = challengeProblem(q.code_challenge, q.code_challenge_method);
  if (pkce !== undefined) return back(oauthError('invalid_request', pkce));
  const asked = requestedScope(client, q);
  if (!asked.ok) return back(asked.error);
  const now = Math.floor(deps.clock() / 1000);
  const pending = await insertCodeRequest(deps.storage.pool, {
    clientId: client.clientId,
    scope: asked.scope,
    resource: asked.resource,
    maxLifetimeSeconds: PERSON_TOKEN_LIFETIME_SECONDS,
    now,
    redirectUri: q.redirect_uri,
    state: q.state,
    codeChallenge: q.code_challenge!,
  });
  return html(200, consentPage(pending, client), q.redirect_uri);
}

function consentPage(a: Authorization, client: OAuthClient, error?: string): string {
  return renderConsentPage({
    action: CONSENT_PATH,
    requestId: a.requestId,
    csrf: csrfToken(csrfSecretOf(a), a.requestId),
    clientName: client.clientName,
    scopes: a.scope,
    maxLifetimeSeconds: a.maxLifetimeSeconds,
    ...(a.resource !== null ? { resource: a.resource } : {}),
    ...(error !== undefined ? { error } : {}),
  });
}

/** May this person approve at all: the admin key, or a token holding `oauth:consent`. */
function mayConsent(approver: Caller): boolean {
  return approver.kind === 'admin' || scopeGrants(approver.scope, CONSENT_SCOPE);
}

/**
 * `POST /oauth/consent`: the person's decision on a pending code or device request, taken once. Deny
 * needs no sign-in (it gives nothing); Approve needs the admin key or an `oauth:consent` token, and
 * gives at most what was asked, within the approver's own scope (a token cannot approve more than it
 * holds). A failed sign-in shows the page again with the reason.
 */
export async function handleConsent(deps: OAuthDeps, req: ConsentRequest): Promise<Page> {
  const now = Math.floor(deps.clock() / 1000);
  const a = req.requestId.length <= 64 ? await findAuthorization(deps.storage.pool, req.requestId) : null;
  const grant = a?.kind === 'device' ? DEVICE_CODE_GRANT : 'authorization_code';
  const who = req.approver?.sub ?? 'anonymous';
  if (a === null || !csrfMatches(csrfSecretOf(a), a.requestId, req.csrf)) {
    refusal(deps, 'oauth:consent', who, grant, oauthError('invalid_request', 'unknown consent request or a CSRF token not its own'));
    return html(400, renderNoticePage('Request not recognised', 'This consent form is not one the suite gave out. Start again from the application.'));
  }
  const client = await findClient(deps.storage.pool, a.clientId);
  if (a.status !== 'pending' || a.expiresAt <= now || client === null) {
    refusal(
      deps,
      'oauth:consent',
      who,
      grant,
      oauthError('invalid_request', `the request is ${a.status !== 'pending' ? `already ${a.status}` : 'expired'}`),
      client?.tenantId ?? null,
    );
    return html(400, renderNoticePage('Request no longer pending', 'This request was already decided or has expired. Start again from the application.'));
  }
  const again = (status: number, problem: string) => {
    refusal(deps, 'oauth:consent', who, grant, oauthError('access_denied', problem), client.tenantId);
    return html(status, consentPage(a, client, problem), a.redirectUri ?? undefined);
  };
  if (req.decision === 'deny') {
    await decide(deps.storage.pool, a.requestId, 'deny', now);
    refusal(deps, 'oauth:consent', who, grant, oauthError('access_denied', `denied ${client.clientId} (${client.clientName})`), client.tenantId);
    if (a.kind === 'code')
      return redirectBack(
        a.redirectUri!,
        { error: 'access_denied', error_description: 'the person denied the request', state: a.state ?? undefined },
        req.issuer,
      );
    return html(200, renderNoticePage('Denied', `${client.clientName} gets nothing. You may close this page.`));
  }
  if (req.decision !== 'approve') return again(400, 'Choose Approve or Deny.');
  if (req.approver === undefined) return again(401, req.signInProblem ?? 'Sign in with the admin key or a token holding oauth:consent to approve.');
  if (!mayConsent(req.approver)) return again(403, 'This token does not hold oauth:consent.');
  const narrowed = narrowedConsent(a.scope, req.scope, a.maxLifetimeSeconds, req.lifetime);
  if (!narrowed.ok) return again(400, narrowed.problem);
  if (req.approver.kind === 'token') {
    const beyond = scopeBeyond(req.approver.scope, narrowed.scope);
    if (beyond !== undefined) return again(403, `You cannot approve ${beyond}: your token does not hold it.`);
  }
  const tenantId = req.approver.tenantId ?? client.tenantId ?? null;
  const decided = await decide(
    deps.storage.pool,
    a.requestId,
    { approvedBy: req.approver.sub, scope: narrowed.scope, lifetimeSeconds: narrowed.lifetimeSeconds, tenantId },
    now,
  );
  if (!decided.ok) return html(400, renderNoticePage('Request no longer pending', 'This request was decided meanwhile or has expired.'));
  await deps.audit.recordAndWait({
    subject: req.approver.sub,
    action: 'oauth:consent',
    resource: `grant:${grant}`,
    result: 'allow',
    tenantId,
    reason: clipText(
      `approved ${client.clientId} (${client.clientName}) scope ${narrowed.scope.join(' ')} for ${narrowed.lifetimeSeconds} s${a.resource !== null ? ` at ${a.resource}` : ''}${narrowed.scope.length < a.scope.length ? `, narrowed from ${a.scope.join(' ')}` : ''}`,
      1024,
    ),
  });
  deps.counter.inc({ grant_type: grant, outcome: 'consented' });
  if (a.kind === 'code') return redirectBack(a.redirectUri!, { code: decided.code, state: a.state ?? undefined }, req.issuer);
  return html(200, renderNoticePage('Approved', `${client.clientName} may now finish signing in. You may close this page.`));
}

/**
 * `GET /oauth/device` (RFC 8628 §3.3): the page where a person types the user code, then the same
 * consent page as the code grant's for the device's request.
 */
export async function handleDevicePage(deps: OAuthDeps, req: DevicePageRequest): Promise<Page> {
  const entry = (status: number, error?: string) =>
    html(
      status,
      renderUserCodePage({
        action: DEVICE_PAGE_PATH,
        ...(error !== undefined ? { error } : {}),
        ...(req.userCode !== undefined ? { userCode: req.userCode.slice(0, 20) } : {}),
      }),
    );
  if (req.framed === true) return framedRefusal(deps, 'anonymous', DEVICE_CODE_GRANT);
  if (req.userCode === undefined) return entry(200);
  const userCode = normaliseUserCode(req.userCode);
  const now = Math.floor(deps.clock() / 1000);
  const a = userCode === undefined ? null : await findByUserCode(deps.storage.pool, userCode);
  if (a === null || a.status !== 'pending' || a.expiresAt <= now) {
    refusal(deps, 'oauth:consent', 'anonymous', DEVICE_CODE_GRANT, oauthError('invalid_request', 'a user code that is not pending was entered'));
    return entry(400, 'That code is not waiting for approval: check it, or start again on the device.');
  }
  const client = await findClient(deps.storage.pool, a.clientId);
  if (client === null) return entry(400, "The device's application is no longer registered.");
  return html(200, consentPage(a, client));
}
