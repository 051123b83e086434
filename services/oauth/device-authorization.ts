import type { Static } from 'typebox';
import { clipText } from '../../bus/index.ts';
import { DEFAULT_POLL_INTERVAL_SECONDS, DEVICE_CODE_LIFETIME_SECONDS } from '../../core/authorization/index.ts';
import { DEVICE_CODE_GRANT, oauthError, type OAuthError } from '../../core/oauth/index.ts';
import { authenticateClient } from './client-auth.ts';
import { insertDeviceRequest } from './authorizations.ts';
import { DEVICE_PAGE_PATH, PERSON_TOKEN_LIFETIME_SECONDS, requestedScope } from './consent.ts';
import { errorAnswer } from './token-endpoint.ts';
import type { OAuthDeps } from './deps.ts';
import type { HttpAnswer, oauthSubjects } from './subjects.ts';

type Answer = Static<typeof HttpAnswer>;
type EndpointRequest = Static<typeof oauthSubjects.deviceAuthorization.request>;

/**
 * `POST /oauth/device_authorization` (RFC 8628 §3.1, §3.2): a client registered for the device grant
 * (public or confidential, authenticated as at the token endpoint) asks; it gets a device code to
 * poll with, and a user code and the page where a person enters it. Refusals are
 * `oauth:device_authorization` deny entries.
 */
export async function handleDeviceAuthorization(deps: OAuthDeps, req: EndpointRequest): Promise<Answer> {
  const now = Math.floor(deps.clock() / 1000);
  const refuse = (error: OAuthError, who: string, tenantId: string | null = null): Answer => {
    deps.audit.record({
      subject: clipText(who, 200),
      action: 'oauth:device_authorization',
      resource: `grant:${DEVICE_CODE_GRANT}`,
      result: 'deny',
      reason: clipText(`${error.error}: ${error.error_description}`, 1024),
      tenantId,
    });
    deps.counter.inc({ grant_type: DEVICE_CODE_GRANT, outcome: error.error });
    return errorAnswer(error, /^basic /i.test(req.authorization ?? ''));
  };
  const auth = await authenticateClient(deps.storage.pool, {
    params: req.form,
    authorization: req.authorization,
    audiences: [req.url, req.issuer, `${req.issuer}/oauth/token`],
    now,
  });
  if (!auth.ok) return refuse(auth.error, auth.clientId ?? req.form.client_id ?? 'anonymous');
  const { client } = auth;
  if (!client.grantTypes.includes(DEVICE_CODE_GRANT))
    return refuse(oauthError('unauthorized_client', 'this client is not registered for the device grant'), client.clientId, client.tenantId);
  const asked = requestedScope(client, req.form);
  if (!asked.ok) return refuse(asked.error, client.clientId, client.tenantId);
  const { deviceCode, userCode } = await insertDeviceRequest(deps.storage.pool, {
    clientId: client.clientId,
    scope: asked.scope,
    resource: asked.resource,
    maxLifetimeSeconds: PERSON_TOKEN_LIFETIME_SECONDS,
    now,
    lifetimeSeconds: DEVICE_CODE_LIFETIME_SECONDS,
    intervalSeconds: DEFAULT_POLL_INTERVAL_SECONDS,
  });
  deps.audit.record({
    subject: client.clientId,
    action: 'oauth:device_authorization',
    resource: `grant:${DEVICE_CODE_GRANT}`,
    result: 'allow',
    tenantId: client.tenantId,
    reason: clipText(`user code ${userCode} waits for a person to approve scope ${asked.scope.join(' ')}`, 1024),
  });
  const page = `${req.issuer}${DEVICE_PAGE_PATH}`;
  return {
    status: 200,
    headers: { 'cache-control': 'no-store' },
    body: {
      device_code: deviceCode,
      user_code: userCode,
      verification_uri: page,
      verification_uri_complete: `${page}?user_code=${encodeURIComponent(userCode)}`,
      expires_in: DEVICE_CODE_LIFETIME_SECONDS,
      interval: DEFAULT_POLL_INTERVAL_SECONDS,
    },
  };
}
