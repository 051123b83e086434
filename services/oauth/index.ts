import { Counter } from 'prom-client';
import { defineService } from '../kit/index.ts';
import { oauthConfig } from './config.ts';
import { createOutboundGuard, outboundPolicy } from '../../actors/outbound/index.ts';
import { createFederation } from './federation.ts';
import { OAuthActor } from './actor.ts';
import { oauthRoutes } from './routes/index.ts';
import { oauthSubjects } from './subjects.ts';

/**
 * The OAuth 2.1 authorization server (listener 8081; docs/OAUTH.md, issue 32): discovery, dynamic
 * registration, the token endpoint and its grants (grants/README.md), introspection and revocation.
 * The tokens are the suite's capability tokens; OAuth is how they are obtained, checked and bound.
 */
export const oauthService = defineService({
  name: 'oauth',
  config: oauthConfig,
  listener: 'token',
  actorRoles: ['actor:oauth'],
  readiness: { 'actor:oauth': oauthSubjects.token.subject },
  migrations: { name: 'oauth', dir: new URL('./migrations/', import.meta.url) },
  async startActors(ctx) {
    if (!ctx.has('actor:oauth')) return {};
    if (ctx.checker === undefined) throw new Error('actor:oauth needs the process to check tokens');
    const registry = ctx.metrics.service('token').registry;
    const counter =
      (registry.getSingleMetric('suite_oauth_grants_total') as Counter<'grant_type' | 'outcome'> | undefined) ??
      new Counter({
        name: 'suite_oauth_grants_total',
        help: 'Token endpoint requests, by grant type and outcome (issued, or the RFC 6749 error)',
        labelNames: ['grant_type', 'outcome'] as const,
        registers: [registry],
      });
    const { config } = ctx;
    // The trusted-issuer file was checked when the configuration was read (config.ts).
    const federation =
      config.oauthTrustedIssuers === undefined
        ? undefined
        : createFederation(
            config.oauthTrustedIssuers,
            createOutboundGuard({
              policy: outboundPolicy({ allowList: config.outboundAllow, distributed: config.natsServers !== undefined, production: config.production }),
            }),
          );
    const actor = new OAuthActor({
      bus: ctx.bus,
      storage: ctx.storage,
      ring: ctx.ring,
      audit: ctx.audit,
      checker: ctx.checker,
      logger: ctx.logger.child({ component: 'oauth' }),
      audience: ctx.config.audience,
      counter,
      clock: Date.now,
      federation,
    });
    actor.start();
    return {
      producers: [
        {
          name: 'oauth',
          stop: async () => {
            await actor.stop();
            await federation?.close();
          },
        },
      ],
    };
  },
  routes: (ctx) => oauthRoutes(ctx),
});

export { oauthSubjects } from './subjects.ts';
