import { connectorSubjects } from './subjects.ts';
import { createOutboundGuard, outboundPolicy } from '../../actors/outbound/index.ts';
import { defineService } from '../kit/index.ts';
import { connectorsConfig } from './config.ts';
import { ConnectorsActor } from './actor.ts';
import { connectorRoutes } from './routes.ts';
import { connectorTools } from './mcp-tools.ts';

/**
 * The connector service (listener 8084): a registry of connectors with their configuration state,
 * read-only credential checks, actions recorded as execution traces, and a deterministic connector
 * generator (docs/CONNECTORS.md). Its actor holds the credentials and makes every outbound call,
 * through the shared SSRF guard; the edge reaches it over the bus. It has no tables of its own.
 */
export const connectorsService = defineService({
  name: 'connectors',
  config: connectorsConfig,
  listener: 'connector',
  actorRoles: ['actor:connectors'],
  readiness: { 'actor:connectors': connectorSubjects.list.subject },
  mcpTools: connectorTools,
  async startActors(ctx) {
    if (!ctx.has('actor:connectors')) return {};
    const { config, bus, logger } = ctx;
    const guard = createOutboundGuard({
      policy: outboundPolicy({ allowList: config.outboundAllow, distributed: config.natsServers !== undefined, production: config.production }),
    });
    const actor = new ConnectorsActor({ bus, values: config.connectors, guard, logger: logger.child({ component: 'connectors' }) });
    actor.start();
    return {
      actors: [
        {
          name: 'connectors',
          stop: async () => {
            await actor.stop();
            await guard.close();
          },
        },
      ],
    };
  },
  routes: ({ bus }) => connectorRoutes(bus),
});
