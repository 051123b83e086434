import { subjects } from '../../bus/index.ts';
import { AuditReaderActor, AuditWriterActor } from '../../actors/audit/index.ts';
import { startExecutionActors } from './executions/index.ts';
import { createThreadedTraceSigner } from '../../actors/chain/index.ts';
import { RetentionPruner } from './retention/index.ts';
import { defineService, type RunningPart } from '../kit/index.ts';
import { executionLogRoutes, executionReadRoutes, executionRoutes } from './routes/index.ts';
import { logKey } from '../../core/tlog/index.ts';
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { executionTools } from './mcp-tools.ts';
import { spineConfig } from './config.ts';

/**
 * The spine every service stands on: the audit chain (every decision of every listener is recorded
 * on it) and the execution chain (traces, their reads and verification, the transparency log,
 * retention). Revocation, which every edge keeps a view of, is the token service's. It has no
 * listener of its own: the token listener serves the execution chain's routes, and the dashboard's serves them too (same origin for the browser).
 * Its tables are the suite's own migrations (storage/migrations), which every other set builds on.
 */
export const spineService = defineService({
  name: 'spine',
  listener: 'token',
  alsoOn: ['dashboard'],
  config: spineConfig,
  actorRoles: ['actor:chain-writer', 'actor:audit', 'actor:executions'],
  readiness: {
    'actor:chain-writer': subjects.auditAppend.subject,
    'actor:audit': subjects.auditList.subject,
    'actor:executions': subjects.executionsGet.subject,
  },
  mcpTools: executionTools,
  routes({ bus }) {
    const parts = [executionRoutes(bus), executionReadRoutes(bus), executionLogRoutes(bus)];
    return async (app) => {
      for (const register of parts) await register(app);
    };
  },
  async startActors(ctx) {
    const { bus, storage, holder, config, logger } = ctx;
    const actors: RunningPart[] = [];
    // The chain writers of this process: /ready is 503 while the commits of any keep failing.
    const writers: Array<{ readonly stalled: boolean }> = [];
    if (ctx.has('actor:chain-writer')) {
      const writer = new AuditWriterActor({
        bus,
        storage,
        holder,
        leaseMs: config.chainLeaseMs,
        renewMs: config.chainLeaseRenewMs,
        logger: logger.child({ component: 'chain-writer' }),
        metrics: ctx.metrics.promises.chains,
      });
      await writer.start();
      writers.push(writer);
      actors.push({ name: 'chain-writer', stop: () => writer.stop() });
    }
    if (ctx.has('actor:chain-writer') || ctx.has('actor:executions')) {
      // The execution chain: its writer runs with the chain-writer role (one leads, the others stand
      // by), its reads and verification with actor:executions. One signer per process, signing
      // batches on a thread of its own, off the thread that serves HTTP.
      const executions = await startExecutionActors({
        bus,
        storage,
        holder,
        leaseMs: config.chainLeaseMs,
        renewMs: config.chainLeaseRenewMs,
        signer: createThreadedTraceSigner(config.tracePrivateKeyPem),
        logger: logger.child({ component: 'executions' }),
        roles: { writer: ctx.has('actor:chain-writer'), reader: ctx.has('actor:executions') },
        metrics: ctx.metrics.promises,
        // Checkpoints are signed with the configured trace key (its public key is then the log's too;
        // without one, an ephemeral key of the log's own, like the trace signer's); notes are never 32
        // bytes long, so a checkpoint signature can never pass for a record's. Only the writer signs.
        ...(ctx.has('actor:chain-writer')
          ? {
              log: (() => {
                const key = logKey(
                  config.tlogOrigin,
                  config.tracePrivateKeyPem !== undefined ? createPrivateKey(config.tracePrivateKeyPem) : generateKeyPairSync('ed25519').privateKey,
                );
                return { origin: config.tlogOrigin, signer: key.signer, vkey: key.vkey };
              })(),
              witnesses: config.tlogWitnesses,
            }
          : {}),
      });
      if (executions.writer) writers.push(executions.writer);
      actors.push({ name: 'executions', stop: () => executions.stop() });
    }
    if (ctx.has('actor:chain-writer')) {
      // Retention: in the writers' processes (one prunes at a time, under a database lock), off every request's path.
      const pruner = new RetentionPruner({ storage, ...config.retention, logger: logger.child({ component: 'retention' }) });
      pruner.start();
      actors.push({ name: 'retention', stop: () => pruner.stop() });
    }
    if (ctx.has('actor:audit')) {
      const reader = new AuditReaderActor({ bus, storage });
      reader.start();
      actors.push({ name: 'audit-reader', stop: () => reader.stop() });
    }
    return { actors, ...(writers.length > 0 ? { stalled: () => writers.some((w) => w.stalled) } : {}) };
  },
});

export { executionLogRoutes, executionReadRoutes, executionRoutes } from './routes/index.ts';
