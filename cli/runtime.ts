import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { listenerUrl, type ServiceName } from '../config/index.ts';
import { createBus, connectNatsTransport, createMemoryNetwork, namespacedTransport, SuiteError, type Bus } from '../bus/index.ts';
import { openStorage, type MigrationSet, type Storage } from '../storage/index.ts';
import { TokenChecker } from '../actors/capability/index.ts';
import { createHmacKeyRing } from '../core/capability/index.ts';
import { AuditBatcher } from '../actors/audit/index.ts';
import { unavailableData } from '../actors/base/index.ts';
import { RevocationView } from '../services/token/index.ts';
import { SERVICE_MODULES, type ActorContext, type SuiteConfig } from '../services/index.ts';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createLogger, createMetricsRegistry, startMetricsListener, startTracing } from '../observability/index.ts';
import { EDGE_ROLES, isEdgeRole, type Role } from './roles.ts';
import { startEdge, type RunningEdge } from './edge.ts';

export interface RunningSuite {
  readonly bus: Bus;
  readonly storage: Storage | undefined;
  readonly edges: readonly RunningEdge[];
  readonly revocations: RevocationView | undefined;
  /** The process's token checker (over `revocations`); undefined when it checks no token. */
  readonly checker: TokenChecker | undefined;
  /** The process's audit sink. */
  readonly audit: AuditBatcher;
  /**
   * Settles when this process can no longer serve and must end (its embedded Postgres died and could
   * not be restarted): the command logs the error and exits non-zero. Never settles otherwise.
   */
  readonly fatal: Promise<Error>;
  /** Drain edges (in-flight requests finish), then actors, then the bus and storage. Idempotent. */
  stop(): Promise<void>;
  /** The part whose stop is under way, once stop() has begun and until it ends; for the log. */
  stoppingPart(): string | undefined;
}

export interface SuiteOptions {
  /** Tests: record spans into these processors (observability/tracing.ts, `spanProcessors`). */
  spanProcessors?: readonly SpanProcessor[];
  /** Check tokens without an edge listener (`suite mcp` over stdio): keep a revocation view and a checker. */
  checksTokens?: boolean;
}

interface Stoppable {
  name: string;
  stop(): Promise<void> | void;
}

/**
 * Shutdown phases, in order: edges stop taking requests and finish those in flight; the token actor
 * stops; the audit sink flushes what they recorded (the chain writer is still up); the remaining
 * actors stop; then the revocation view, storage and the bus.
 */
interface Phases {
  edges: Stoppable[];
  producers: Stoppable[];
  sink: Stoppable[];
  actors: Stoppable[];
  infra: Stoppable[];
}

/**
 * Start the given roles in this process. Embedded when no NATS URL is configured (memory bus), with
 * PGlite unless a Postgres URL is; the same code runs above the transport and the driver.
 */
export async function startSuite(config: SuiteConfig, roles: readonly Role[], baseLogger?: Logger, options: SuiteOptions = {}): Promise<RunningSuite> {
  const logger = baseLogger ?? createLogger({ level: config.logLevel as 'info', service: 'suite' });
  const phases: Phases = { edges: [], producers: [], sink: [], actors: [], infra: [] };
  const holder = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  // When the process must be gone by (SUITE_SHUTDOWN_GRACE_MS from the start of stop()).
  const shutdown = { deadline: Date.now() + config.shutdownGraceMs };
  let giveUp: (error: Error) => void = () => {};
  const fatal = new Promise<Error>((resolve) => (giveUp = resolve));
  try {
    // One tracer provider per process (shared if this process starts several suites). First in
    // infra, so it stops last: after the bus drained and storage closed, it flushes their spans.
    const tracing = startTracing({ settings: config.tracing, ...(options.spanProcessors ? { spanProcessors: options.spanProcessors } : {}) });
    phases.infra.push({ name: 'tracing', stop: () => tracing.shutdown() });
    const wire = config.natsServers
      ? await connectNatsTransport({ servers: [...config.natsServers], name: holder, ...config.natsUser })
      : createMemoryNetwork().connect();
    const transport = config.busNamespace ? namespacedTransport(wire, config.busNamespace) : wire;
    const bus = createBus(transport, {
      propagation: tracing.propagation,
      // A refused payload is a peer's mistake, described by its message; a handler's throw is ours:
      // the caller got INTERNAL_ERROR (a 500), so its cause is logged as an error, stack included.
      // Storage down is a 503 (SERVICE_UNAVAILABLE), not a bug: the caller is told to retry.
      classifyError: unavailableData,
      onError: (err, info) =>
        info.stage === 'handler'
          ? logger.error({ err, subject: info.subject, stage: info.stage }, 'bus handler failed; answered INTERNAL_ERROR')
          : info.stage === 'unavailable'
            ? logger.warn(
                { subject: info.subject, reason: err instanceof Error ? err.message : String(err) },
                'storage unavailable; answered SERVICE_UNAVAILABLE',
              )
            : logger.warn(
                err instanceof SuiteError
                  ? { code: err.code, reason: err.message, subject: info.subject, stage: info.stage }
                  : { err, subject: info.subject, stage: info.stage },
                'bus message failed',
              ),
    });
    phases.infra.push({ name: 'bus', stop: () => bus.drain() });

    const actorRoles = roles.filter((r) => !isEdgeRole(r));
    let storage: Storage | undefined;
    if (actorRoles.length > 0) {
      storage = await openStorage({
        migrationSets: migrationSets(),
        ...(config.databaseUrl !== undefined ? { databaseUrl: config.databaseUrl } : {}),
        ...(config.dbPath !== undefined ? { dbPath: config.dbPath } : {}),
        ...(config.databasePoolSize !== undefined ? { poolSize: config.databasePoolSize } : {}),
        logger: logger.child({ component: 'storage' }),
        tracing: tracing.recording,
        embeddedRestart: { ...config.dbRestart, onGiveUp: giveUp },
      });
      const s = storage;
      phases.infra.push({ name: 'storage', stop: () => s.close() });
    }
    if (config.hmacSecrets.length === 0) {
      throw new Error('no token signing secret: set SUITE_HMAC_SECRET (32+ characters) or start with a data folder');
    }
    const ring = await createHmacKeyRing(config.hmacSecrets);
    const metrics = createMetricsRegistry();
    const audit = new AuditBatcher({ bus, logger: logger.child({ component: 'audit-sink' }), metrics: metrics.promises });
    // A process with a journal folder (by default in its data folder) keeps its audit entries there
    // until the chain has them; without one, a decision waits for its entry's commit (docs/DECISIONS.md).
    // Processes sharing one data folder (distributed roles on one machine): the first takes it.
    if (config.auditJournalDir !== undefined) {
      await audit.useJournal(config.auditJournalDir).catch((err: unknown) => {
        logger.warn(
          { reason: err instanceof Error ? err.message : String(err) },
          "no audit journal for this process: its decisions wait for their entries' commits",
        );
      });
    }
    phases.sink.push({ name: 'audit-sink', stop: () => drainAudit(audit, shutdown.deadline, logger) });

    const need = (role: Role) => roles.includes(role);
    // The view and checker are made before the actors (the token actor checks tokens with them),
    // and started after: the view's first snapshot comes from the revocation actor.
    const view =
      need('actor:tokens') || roles.some(isEdgeRole) || options.checksTokens === true
        ? new RevocationView({
            bus,
            stalenessMs: config.revocationStalenessMs,
            logger: logger.child({ component: 'revocation-view' }),
            metrics: metrics.promises,
          })
        : undefined;
    const checker =
      view &&
      new TokenChecker({
        ring,
        revocations: view,
        ...(config.audience !== undefined ? { audience: acceptedAudiences(config.audience, config.publicUrl) } : {}),
      });

    // Parts whose failures /ready must show (the chain writers: 503 while their commits keep failing).
    const stalls: Array<() => boolean> = [];
    if (storage) {
      const ctx: ActorContext = {
        config,
        bus,
        storage,
        logger,
        holder,
        audit,
        ring,
        checker,
        metrics,
        has: (role) => roles.includes(role as Role),
      };
      for (const service of SERVICE_MODULES) {
        const started = await service.startActors?.(ctx);
        phases.producers.push(...(started?.producers ?? []));
        phases.actors.push(...(started?.actors ?? []));
        if (started?.stalled) stalls.push(started.stalled);
      }
    }

    // NATS registers subscriptions asynchronously: flush so this process's actors are reachable
    // before anything (its own edges included) sends them requests.
    await bus.flush();
    if (view) {
      await view.start();
      phases.infra.push({ name: 'revocation-view', stop: () => view.stop() });
    }

    const edges: RunningEdge[] = [];
    // The dashboard's probes and proxy reach this process's listeners at the ports they were bound to.
    const locate = (service: ServiceName) => listenerUrl(config, service, edges.find((e) => e.service === service)?.port);
    for (const role of roles.filter(isEdgeRole)) {
      const edge = await startEdge({
        service: EDGE_ROLES[role],
        config,
        bus,
        storage,
        audit,
        checker: checker as TokenChecker,
        services: SERVICE_MODULES,
        listenerUrl: locate,
        peers: () => edges,
        revocations: view as RevocationView,
        logger,
        metrics,
        tracing: tracing.http,
        ...(stalls.length > 0 ? { chainsHealthy: () => !stalls.some((stalled) => stalled()) } : {}),
      });
      edges.push(edge);
      phases.edges.push({ name: role, stop: () => edge.stop() });
    }
    // A process without listeners serves its metrics on a port of its own, if given one.
    if (edges.length === 0 && config.metricsPort !== undefined) {
      const listener = await startMetricsListener(metrics, config.host, config.metricsPort);
      phases.edges.push({ name: 'metrics', stop: () => listener.stop() });
      logger.info({ port: listener.port }, 'metrics listener started');
    }

    let stopping: Promise<void> | undefined;
    const progress: UnwindProgress = {};
    return {
      bus,
      storage,
      edges,
      revocations: view,
      checker,
      audit,
      fatal,
      stop: () => {
        if (stopping === undefined) shutdown.deadline = Date.now() + config.shutdownGraceMs;
        stopping ??= unwind(phases, logger, progress);
        return stopping;
      },
      stoppingPart: () => progress.part,
    };
  } catch (err) {
    await unwind(phases, logger);
    throw err;
  }
}

/** Every service's own migrations: any process that opens storage brings the whole schema up to date. */
export function migrationSets(): MigrationSet[] {
  return SERVICE_MODULES.flatMap((s) => (s.migrations ? [s.migrations] : []));
}

/** Time kept, after the audit entries are waited for, for the phases after them (actors, bus, storage). */
const AFTER_AUDIT_RESERVE_MS = 3_000;

/**
 * Shutdown's wait for the audit entries recorded so far: up to what the grace time leaves, minus
 * the time the later phases need, so the outcome is logged before the grace timer ends the process.
 * What the chain did not take by then is logged by `close()` (count, first and last ids).
 */
async function drainAudit(audit: AuditBatcher, deadline: number, logger: Logger): Promise<void> {
  const pending = audit.backlog;
  if (pending > 0) {
    const waitMs = Math.max(0, deadline - Date.now() - AFTER_AUDIT_RESERVE_MS);
    logger.info({ pending, waitMs }, 'waiting for audit entries to be committed');
    if (await audit.flush(waitMs)) logger.info({ committed: pending }, 'audit entries committed');
  }
  await audit.close();
}

interface UnwindProgress {
  part?: string;
}

async function unwind(p: Phases, logger: Logger, progress: UnwindProgress = {}): Promise<void> {
  // Within a phase, the last started stops first (infra: view, then storage, then the bus).
  const order = [p.edges, p.producers, p.sink, p.actors, p.infra].flatMap((phase) => [...phase].reverse());
  for (const item of order) {
    progress.part = item.name;
    try {
      await item.stop();
    } catch (err) {
      logger.error({ err, component: item.name }, 'stop failed');
    }
  }
  progress.part = undefined;
}

/**
 * With SUITE_AUDIENCE set, the audiences every edge accepts: it, and the suite's own RFC 8707 resource
 * (`<SUITE_PUBLIC_URL>/mcp`, the identifier /mcp announces), so a token the token endpoint minted for
 * that resource is not refused by the very edge it names (it was, before: docs/DECISIONS.md). Another
 * resource's token stays refused. Without SUITE_PUBLIC_URL the resource is the listener's own address,
 * known only once bound: set SUITE_PUBLIC_URL with SUITE_AUDIENCE (docs/OAUTH.md).
 */
export function acceptedAudiences(audience: string, publicUrl: string | undefined): readonly string[] {
  return publicUrl === undefined ? [audience] : [audience, `${publicUrl.replace(/\/+$/, '')}/mcp`];
}
