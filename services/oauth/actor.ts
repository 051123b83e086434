import type { Subscription } from '../../bus/index.ts';
import { BusActor, replyOf } from '../../actors/base/index.ts';
import { SuiteError } from '../../bus/index.ts';
import { clipText } from '../../bus/index.ts';
import type { OAuthDeps } from './deps.ts';
import { oauthSubjects as s } from './subjects.ts';
import { handleTokenRequest } from './token-endpoint.ts';
import { registerClient } from './registration.ts';
import { deleteClient, listClients } from './clients.ts';
import { handleIntrospection, handleRevocation } from './introspection.ts';
import { firstUseOfJti, pruneSeenJti } from './replay.ts';
import { pruneAuthorizations } from './authorizations.ts';
import { handleAuthorize, handleConsent, handleDevicePage } from './consent.ts';
import { handleDeviceAuthorization } from './device-authorization.ts';
import { listGrantLog, pruneGrantLog } from './grant-log.ts';
import { issuersView } from './issuers-view.ts';

const PRUNE_EVERY_MS = 60_000;

/**
 * The OAuth actor (`actor:oauth`, queue `oauth`, any number of replicas: its state is in Postgres):
 * the token, introspection, revocation and registration endpoints' decisions, and the client list.
 */
export class OAuthActor extends BusActor {
  readonly #d: OAuthDeps;

  constructor(deps: OAuthDeps) {
    super();
    this.#d = deps;
  }

  protected subscriptions(): Subscription[] {
    const d = this.#d;
    const queue = { queue: 'oauth' };
    const unexpected = (err: unknown) => d.logger.error({ err }, 'oauth handler failed');
    this.every(PRUNE_EVERY_MS, () => void pruneSeenJti(d.storage.pool).catch(unexpected), 'oauth.prune-jti');
    this.every(PRUNE_EVERY_MS, () => void pruneAuthorizations(d.storage.pool).catch(unexpected), 'oauth.prune-authorizations');
    this.every(PRUNE_EVERY_MS * 60, () => void pruneGrantLog(d.storage.pool).catch(unexpected), 'oauth.prune-grant-log');
    return [
      d.bus.serve(s.token, ({ data }) => replyOf(() => handleTokenRequest(d, data), unexpected), queue),
      d.bus.serve(s.introspect, ({ data }) => replyOf(() => handleIntrospection(d, data), unexpected), queue),
      d.bus.serve(s.revoke, ({ data }) => replyOf(() => handleRevocation(d, data), unexpected), queue),
      d.bus.serve(s.authorize, ({ data }) => replyOf(() => handleAuthorize(d, data), unexpected), queue),
      d.bus.serve(s.consent, ({ data }) => replyOf(() => handleConsent(d, data), unexpected), queue),
      d.bus.serve(s.devicePage, ({ data }) => replyOf(() => handleDevicePage(d, data), unexpected), queue),
      d.bus.serve(s.deviceAuthorization, ({ data }) => replyOf(() => handleDeviceAuthorization(d, data), unexpected), queue),
      d.bus.serve(s.register, ({ data }) => replyOf(() => registerClient(d, data), unexpected), queue),
      d.bus.serve(
        s.listClients,
        ({ data }) =>
          replyOf(
            async () => ({
              clients: await listClients(d.storage.pool, data.limit, data.offset, data.caller.tenantId),
            }),
            unexpected,
          ),
        queue,
      ),
      d.bus.serve(
        s.dpopFirstUse,
        ({ data }) =>
          replyOf(
            async () => ({
              first: await firstUseOfJti(d.storage.pool, `dpop-edge:${data.jkt}`, data.jti, data.exp),
            }),
            unexpected,
          ),
        queue,
      ),
      d.bus.serve(s.listIssuers, () => replyOf(async () => issuersView(d.federation?.trust), unexpected), queue),
      d.bus.serve(
        s.listGrants,
        ({ data }) =>
          replyOf(
            async () => ({
              grants: await listGrantLog(d.storage.pool, data.limit, data.caller.tenantId),
            }),
            unexpected,
          ),
        queue,
      ),
      d.bus.serve(
        s.deleteClient,
        ({ data }) =>
          replyOf(async () => {
            const deleted = await deleteClient(d.storage.pool, data.clientId, data.caller.tenantId);
            if (!deleted) throw new SuiteError('NOT_FOUND', `no client ${clipText(data.clientId, 100)}`);
            await d.audit.recordAndWait({
              subject: data.caller.sub,
              action: 'oauth:client:delete',
              resource: `oauth:client:${data.clientId}`,
              result: 'allow',
              reason: 'client deleted; its tokens stay valid until they expire or are revoked',
              tenantId: data.caller.tenantId ?? null,
            });
            return { deleted, clientId: data.clientId };
          }, unexpected),
        queue,
      ),
    ];
  }
}
