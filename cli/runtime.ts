import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { SuiteConfig } from '../config/index.ts';
import { createBus, connectNatsTransport, createMemoryNetwork, namespacedTransport, SuiteError, type Bus } from '../bus/index.ts';
import { openStorage, type Storage } from '../storage/index.ts';
import { createHmacKeyRing, TokenChecker } from '../actors/capability/index.ts';
import { AuditBatcher, AuditReaderActor, AuditWriterActor } from '../actors/audit/index.ts';
import { RevocationActor, RevocationView } from '../actors/revocation/index.ts';
import { TokenActor } from '../actors/tokens/index.ts';
import { TenancyActor } from '../actors/tenancy/index.ts';
import { IdentityActor } from '../actors/identities/index.ts';
import { ModelActor } from '../actors/models/index.ts';
import { startExecutionActors } from '../actors/executions/index.ts';
import { createTraceSigner } from '../actors/chain/index.ts';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createLogger, createMetricsRegistry, startTracing } from '../observability/index.ts';
import { EDGE_ROLES, isEdgeRole, type Role } from './roles.ts';
import { startEdge, type RunningEdge } from './edge.ts';

export interface RunningSuite {
  readonly bus: Bus;
  readonly storage: Storage | undefined;
  readonly edges: readonly RunningEdge[];
  readonly revocations: RevocationView | undefined;
  /** Drain edges (in-flight requests finish), then actors, then the bus and storage. Idempotent. */
  stop(): Promise<void>;
}

export interface SuiteOptions {
  /** Tests: record spans into these processors (observability/tracing.ts, `spanProcessors`). */
  spanProcessors?: readonly SpanProcessor[];
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
export async function startSuite(
  config: SuiteConfig, roles: readonly Role[], baseLogger?: Logger, options: SuiteOptions = {},
): Promise<RunningSuite> {
  const logger = baseLogger ?? createLogger({ level: config.logLevel as 'info', service: 'suite' });
  const phases: Phases = { edges: [], producers: [], sink: [], actors: [], infra: [] };
  const holder = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  // When the process must be gone by (SUITE_SHUTDOWN_GRACE_MS from the start of stop()).
  const shutdown = { deadline: Date.now() + config.shutdownGraceMs };
  try {
    // One tracer provider per process (shared if this process starts several suites). First in
    // infra, so it stops last: after the bus drained and storage closed, it flushes their spans.
    const tracing = startTracing({ settings: config.tracing, ...(options.spanProcessors ? { spanProcessors: options.spanProcessors } : {}) });
    phases.infra.push({ name: 'tracing', stop: () => tracing.shutdown() });
    const wire = config.natsServers
      ? await connectNatsTransport({ servers: [...config.natsServers], name: holder })
      : createMemoryNetwork().connect();
    const transport = config.busNamespace ? namespacedTransport(wire, config.busNamespace) : wire;
    const bus = createBus(transport, {
      propagation: tracing.propagation,
      // A refused payload is a peer's mistake, described by its message; a handler's throw is ours:
      // the caller got INTERNAL_ERROR (a 500), so its cause is logged as an error, stack included.
      onError: (err, info) => info.stage === 'handler'
        ? logger.error({ err, subject: info.subject, stage: info.stage }, 'bus handler failed; answered INTERNAL_ERROR')
        : logger.warn(
          err instanceof SuiteError ? { code: err.code, reason: err.message, subject: info.subject, stage: info.stage } : { err, subject: info.subject, stage: info.stage },
          'bus message failed',
        ),
    });
    phases.infra.push({ name: 'bus', stop: () => bus.drain() });

    const actorRoles = roles.filter((r) => !isEdgeRole(r));
    let storage: Storage | undefined;
    if (actorRoles.length > 0) {
      storage = await openStorage({
        ...(config.databaseUrl !== undefined ? { databaseUrl: config.databaseUrl } : {}),
        ...(config.dbPath !== undefined ? { dbPath: config.dbPath } : {}),
        logger: logger.child({ component: 'storage' }),
        tracing: tracing.recording,
      });
      const s = storage;
      phases.infra.push({ name: 'storage', stop: () => s.close() });
    }
    if (config.hmacSecrets.length === 0) {
      throw new Error('no token signing secret: set SUITE_HMAC_SECRET (32+ characters) or start with a data folder');
    }
    const ring = await createHmacKeyRing(config.hmacSecrets);
    const audit = new AuditBatcher({ bus, logger: logger.child({ component: 'audit-sink' }) });
    phases.sink.push({ name: 'audit-sink', stop: () => drainAudit(audit, shutdown.deadline, logger) });

    const need = (role: Role) => roles.includes(role);
    // The chain writers of this process: /ready is 503 while the commits of any keep failing.
    const writers: Array<{ readonly stalled: boolean }> = [];
    if (need('actor:chain-writer') && storage) {
      const writer = new AuditWriterActor({ bus, storage, holder, leaseMs: config.chainLeaseMs, logger: logger.child({ component: 'chain-writer' }) });
      await writer.start();
      writers.push(writer);
      phases.actors.push({ name: 'chain-writer', stop: () => writer.stop() });
    }
    if ((need('actor:chain-writer') || need('actor:executions')) && storage) {
      // The execution chain: its writer runs with the chain-writer role (one leads, the others stand
      // by), its reads and verification with actor:executions. One signer per process.
      const executions = await startExecutionActors({
        bus, storage, holder, leaseMs: config.chainLeaseMs,
        // Batches are signed on a thread of their own, off the thread that serves HTTP.
        signer: createTraceSigner(config.tracePrivateKeyPem, { thread: true }),
        logger: logger.child({ component: 'executions' }),
        roles: { writer: need('actor:chain-writer'), reader: need('actor:executions') },
      });
      if (executions.writer) writers.push(executions.writer);
      phases.actors.push({ name: 'executions', stop: () => executions.stop() });
    }
    if (need('actor:audit') && storage) {
      const reader = new AuditReaderActor({ bus, storage });
      reader.start();
      phases.actors.push({ name: 'audit-reader', stop: () => reader.stop() });
    }
    if (need('actor:revocation') && storage) {
      const actor = new RevocationActor({
        bus, storage, heartbeatMs: Math.max(100, Math.floor(config.revocationStalenessMs / 3)),
        logger: logger.child({ component: 'revocation' }),
      });
      actor.start();
      phases.actors.push({ name: 'revocation', stop: () => actor.stop() });
    }

    // NATS registers subscriptions asynchronously: flush so this process's actors are reachable
    // before anything (its own edges included) sends them requests.
    await bus.flush();

    let view: RevocationView | undefined;
    if (need('actor:tokens') || roles.some(isEdgeRole)) {
      view = new RevocationView({ bus, stalenessMs: config.revocationStalenessMs, logger: logger.child({ component: 'revocation-view' }) });
      await view.start();
      const v = view;
      phases.infra.push({ name: 'revocation-view', stop: () => v.stop() });
    }
    const checker = view && new TokenChecker({ ring, revocations: view, ...(config.audience !== undefined ? { audience: config.audience } : {}) });

    if (need('actor:tokens') && storage && checker) {
      const tokens = new TokenActor({ bus, storage, ring, checker, audit, ...(config.audience !== undefined ? { audience: config.audience } : {}) });
      tokens.start();
      phases.producers.push({ name: 'tokens', stop: () => tokens.stop() });
      // Tenancy belongs to the token service (spec): same role, queue group `tenancy`.
      const tenancy = new TenancyActor({ bus, storage, audit, logger: logger.child({ component: 'tenancy' }) });
      tenancy.start();
      phases.producers.push({ name: 'tenancy', stop: () => tenancy.stop() });
      // Identities and model pins are part of the token service: same role, same process.
      const identities = new IdentityActor({ bus, storage, audit, logger: logger.child({ component: 'identities' }) });
      identities.start();
      phases.producers.push({ name: 'identities', stop: () => identities.stop() });
      const models = new ModelActor({ bus, storage, audit });
      models.start();
      phases.producers.push({ name: 'models', stop: () => models.stop() });
      await bus.flush();
    }

    const edges: RunningEdge[] = [];
    const metrics = createMetricsRegistry();
    for (const role of roles.filter(isEdgeRole)) {
      const edge = await startEdge({
        service: EDGE_ROLES[role], config, bus, storage, audit, checker: checker as TokenChecker,
        revocations: view as RevocationView, logger, metrics, tracing: tracing.http,
        ...(writers.length > 0 ? { chainsHealthy: () => writers.every((w) => !w.stalled) } : {}),
      });
      edges.push(edge);
      phases.edges.push({ name: role, stop: () => edge.stop() });
    }

    let stopping: Promise<void> | undefined;
    return {
      bus, storage, edges, revocations: view,
      stop: () => {
        if (stopping === undefined) shutdown.deadline = Date.now() + config.shutdownGraceMs;
        return (stopping ??= unwind(phases, logger));
      },
    };
  } catch (err) {
    await unwind(phases, logger);
    throw err;
  }
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
  audit.close();
}

async function unwind(p: Phases, logger: Logger): Promise<void> {
  // Within a phase, the last started stops first (infra: view, then storage, then the bus).
  const order = [p.edges, p.producers, p.sink, p.actors, p.infra].flatMap((phase) => [...phase].reverse());
  for (const item of order) {
    try {
      await item.stop();
    } catch (err) {
      logger.error({ err, component: item.name }, 'stop failed');
    }
  }
}
