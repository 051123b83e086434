import fp from 'fastify-plugin';
import { PART } from './names.ts';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ErrorDataSchema } from '../../bus/index.ts';
import type { MetricsRegistry } from '../../observability/index.ts';
import type { Authority } from '../authority.ts';
import { operation } from '../operations.ts';
import { statusOf } from '../status.ts';
import type { EdgeApp } from '../types.ts';

export const HealthSchema = Type.Object(
  {
    status: Type.String(),
    service: Type.String(),
    uptime: Type.Integer({ description: 'seconds since the process started' }),
  },
  { description: 'The process is up' },
);

const ChecksSchema = Type.Record(Type.String(), Type.Boolean());

export const ReadySchema = Type.Object({ ready: Type.Literal(true), checks: ChecksSchema }, { description: 'Ready: every dependency is usable' });
/** Not ready: the error shape every error answer has, plus the checks that say which dependency. */
export const NotReadySchema = Type.Object(
  { error: ErrorDataSchema, checks: ChecksSchema },
  { description: 'Not ready (SERVICE_UNAVAILABLE): `checks` names the dependency' },
);

export interface OpsOptions {
  service: string;
  /** Each named dependency usable or not; any false (or a throw) makes `/ready` answer 503. */
  readiness: () => Promise<Record<string, boolean>>;
  metrics: MetricsRegistry;
}

/** The status of `SERVICE_UNAVAILABLE` in the one table (typed as the literal the 503 schema expects). */
const NOT_READY = statusOf('SERVICE_UNAVAILABLE') as 503;

const PUBLIC: Authority = Object.freeze({ kind: 'public' });
/** Probes and scrapes are public (spec, Operations routes) and never spend a rate-limit budget. */
const OPS_CONFIG = Object.freeze({ authority: PUBLIC, rateLimit: false as const });

/** The operations routes every service answers (spec, "Operations routes (all services)"). */
function installOpsRoutes(app: EdgeApp, options: OpsOptions): void {
  const { service, readiness, metrics } = options;

  app.get(
    '/health',
    {
      config: OPS_CONFIG,
      schema: { ...operation('operations', 'getHealth', 'Whether the process is up'), response: { 200: HealthSchema } },
    },
    async () => ({
      status: 'ok',
      service,
      uptime: Math.floor(process.uptime()),
    }),
  );

  app.get(
    '/ready',
    {
      config: OPS_CONFIG,
      schema: { ...operation('operations', 'getReadiness', 'Whether every dependency is usable'), response: { 200: ReadySchema, 503: NotReadySchema } },
    },
    async (request, reply) => {
      let checks: Record<string, boolean>;
      let failing: string[];
      try {
        checks = await readiness();
        failing = Object.keys(checks).filter((name) => checks[name] !== true);
      } catch (err) {
        request.log.warn({ err }, 'readiness check failed');
        checks = {};
        failing = ['readiness check'];
      }
      if (failing.length === 0) return { ready: true as const, checks };
      return reply.code(NOT_READY).send({
        error: { code: 'SERVICE_UNAVAILABLE' as const, message: `not ready: ${failing.join(', ')}` },
        checks,
      });
    },
  );

  // This listener's own HTTP series, plus the process-wide ones on one listener of the process:
  // scraping every listener counts nothing twice (docs/OBSERVABILITY.md, "Scraping").
  const exposition = metrics.exposition(service);
  app.get(
    '/metrics',
    {
      config: OPS_CONFIG,
      schema: {
        ...operation('operations', 'getMetrics', 'Metrics in the Prometheus text exposition format'),
        response: { 200: { description: 'Prometheus text exposition format 0.0.4', content: { 'text/plain': { schema: Type.String() } } } },
      },
    },
    async (_request, reply) => {
      reply.type(metrics.contentType);
      return exposition();
    },
  );
}

/** The operations routes: guarded (public, no rate limit) by the route pipeline, described in OpenAPI. */
export const opsRoutesPlugin = fp(async (app: FastifyInstance, o: OpsOptions) => installOpsRoutes(app as unknown as EdgeApp, o), {
  name: PART.opsRoutes,
  dependencies: [PART.routePipeline, PART.openApi],
});
