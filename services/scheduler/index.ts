import { schedulerSubjects } from './subjects.ts';
import { createOutboundGuard, outboundPolicy } from '../../actors/outbound/index.ts';
import { defineService } from '../kit/index.ts';
import { schedulerConfig } from './config.ts';
import { SchedulerActor } from './actor.ts';
import { createScriptRunner } from './script-runner.ts';
import { schedulerMetrics } from './metrics.ts';
import { queueDepth } from './task-store.ts';
import { schedulerRoutes } from './routes.ts';
import { schedulerTools } from './mcp-tools.ts';

/**
 * The scheduler service (listener 8082; issue 14; docs/SCHEDULER.md): durable cron schedules and a
 * shared task queue, run by any number of `actor:scheduler` processes on one database, every
 * outbound call through the SSRF guard and every attempt recorded on the execution chain.
 */
export const schedulerService = defineService({
  name: 'scheduler',
  config: schedulerConfig,
  listener: 'scheduler',
  actorRoles: ['actor:scheduler'],
  readiness: { 'actor:scheduler': schedulerSubjects.health.subject },
  mcpTools: schedulerTools,
  migrations: { name: 'scheduler', dir: new URL('./migrations/', import.meta.url) },
  async startActors(ctx) {
    if (!ctx.has('actor:scheduler')) return {};
    const { bus, storage, config, logger, holder } = ctx;
    const metrics = schedulerMetrics(ctx.metrics.service('scheduler').registry, () => queueDepth(storage.pool));
    const guard = createOutboundGuard({
      policy: outboundPolicy({ allowList: config.outboundAllow, distributed: config.natsServers !== undefined, production: config.production }),
    });
    const scripts = config.schedulerScriptRoot !== undefined ? await createScriptRunner({ root: config.schedulerScriptRoot }) : undefined;
    const actor = new SchedulerActor({
      ...(scripts !== undefined ? { scripts } : {}),
      bus,
      storage,
      holder,
      guard,
      logger: logger.child({ component: 'scheduler' }),
      durable: config.databaseUrl !== undefined || config.dbPath !== undefined,
      settings: { ...config.scheduler, tickMaxSleepMs: 250, retryAfterSeconds: 5 },
      onFired: (lateness) => metrics.fired(lateness),
      onAttempt: (result) => metrics.attempt(result.outcome),
    });
    actor.start();
    return {
      // A producer: its attempts record traces, so it stops while the chain writer is still up.
      producers: [
        {
          name: 'scheduler',
          stop: async () => {
            await actor.stop();
            await guard.close();
          },
        },
      ],
    };
  },
  routes: ({ bus }) => schedulerRoutes(bus),
});
