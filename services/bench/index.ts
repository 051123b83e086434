import { benchSubjects } from './subjects.ts';
import { createOutboundGuard, outboundPolicy, type OutboundGuard } from '../../actors/outbound/index.ts';
import type { SharedConfig } from '../../config/index.ts';
import { defineService } from '../kit/index.ts';
import { benchConfig } from './config.ts';
import { BenchRunnerActor } from './runner.ts';
import { benchRoutes } from './routes.ts';
import { benchTools } from './mcp-tools.ts';
import { providersOf } from './providers-table.ts';
import { targetUrlOf } from './targets.ts';

/** The outbound policy of this process: SUITE_OUTBOUND_ALLOW, else the mode's default (docs/SCHEDULER.md, "SSRF policy"). */
function guardOf(config: SharedConfig): OutboundGuard {
  return createOutboundGuard({
    policy: outboundPolicy({ allowList: config.outboundAllow, distributed: config.natsServers !== undefined, production: config.production }),
  });
}

/**
 * The benchmark service (listener 8083, docs/BENCHMARK.md): HTTP and LLM benchmarks measured by
 * bench-runner actors (any number, sharing the jobs through the database), with percentiles from
 * an HDR histogram, comparisons by Welch's t-test, and reports.
 */
export const benchService = defineService({
  name: 'bench',
  config: benchConfig,
  listener: 'bench',
  actorRoles: ['actor:bench-runner'],
  readiness: { 'actor:bench-runner': benchSubjects.get.subject },
  mcpTools: benchTools,
  migrations: { name: 'bench', dir: new URL('./migrations/', import.meta.url) },
  async startActors(ctx) {
    if (!ctx.has('actor:bench-runner')) return {};
    const { bus, storage, holder, config, logger, metrics } = ctx;
    const guard = guardOf(config);
    const runner = new BenchRunnerActor({
      bus,
      storage,
      holder,
      settings: config.bench,
      guard,
      registry: metrics.service('bench').registry,
      logger: logger.child({ component: 'bench-runner' }),
    });
    runner.start();
    return {
      actors: [
        {
          name: 'bench-runner',
          async stop() {
            await runner.stop();
            await guard.close();
          },
        },
      ],
    };
  },
  routes({ bus, config }) {
    // The edge checks a target's URL rules before a unit is metered; it never connects (the runner does).
    const guard = guardOf(config);
    return benchRoutes(bus, {
      providers: providersOf(config.bench, config.llm.ollamaHost !== undefined),
      refuseUrl(provider, url) {
        if (provider !== 'http' && url === undefined) return undefined;
        try {
          guard.checkUrl(targetUrlOf(provider, url, config.bench));
          return undefined;
        } catch (err) {
          return `body/url: ${err instanceof Error ? err.message : 'refused'}`;
        }
      },
    });
  },
});
