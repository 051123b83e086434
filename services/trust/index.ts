import { trustSubjects } from './subjects.ts';
import { defineService } from '../kit/index.ts';
import { trustConfig } from './config.ts';
import { TrustArbiterActor } from './actor.ts';
import { trustRoutes } from './routes.ts';
import { trustTools } from './mcp-tools.ts';

/**
 * The trust service (listener 8085; docs/TRUST.md): evidence and appeals, advisory scores, grounding
 * checks, arbitration and disputes, contracts, and agent-chain anomalies. The trust arbiter
 * (`actor:trust`) holds the rules' I/O; the rules themselves are core/trust.
 */
export const trustService = defineService({
  name: 'trust',
  config: trustConfig,
  listener: 'trust',
  actorRoles: ['actor:trust'],
  readiness: { 'actor:trust': trustSubjects.score.subject },
  mcpTools: trustTools,
  migrations: { name: 'trust', dir: new URL('./migrations/', import.meta.url) },
  async startActors(ctx) {
    if (!ctx.has('actor:trust')) return {};
    const arbiter = new TrustArbiterActor({
      bus: ctx.bus,
      storage: ctx.storage,
      settings: ctx.config.trust,
      logger: ctx.logger.child({ component: 'trust' }),
    });
    arbiter.start();
    return { actors: [{ name: 'trust', stop: () => arbiter.stop() }] };
  },
  routes: ({ bus }) => trustRoutes(bus),
});
