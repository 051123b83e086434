/** Execution traces: the chain's writer and readers on the bus, verification, and the cost rules. */
import type { PromiseMetrics } from '../../../observability/index.ts';
import type { Bus } from '../../../bus/index.ts';
import type { Storage } from '../../../storage/index.ts';
import type { TraceSigner } from '../../../core/chain/index.ts';
import { ExecutionReaderActor } from './reader-actor.ts';
import { ExecutionReadModelActor } from './read-models/index.ts';
import { ExecutionWriterActor, type ExecutionWriterActorOptions } from './writer-actor.ts';
import { ExecutionLogMaintainer, ExecutionLogReaderActor, WitnessCollector, type CollectedWitness, type LogMaintainerOptions } from '../tlog/index.ts';

export { ExecutionWriterActor, type ExecutionWriterActorOptions } from './writer-actor.ts';
export { ExecutionReaderActor } from './reader-actor.ts';
export { ExecutionReadModelActor } from './read-models/index.ts';

export interface ExecutionActorsOptions {
  bus: Bus;
  storage: Storage;
  /** `createTraceSigner(config.tracePrivateKeyPem)`: undefined there means an ephemeral key. */
  signer: TraceSigner;
  holder: string;
  logger?: ExecutionWriterActorOptions['logger'];
  /** `writer`: with the `actor:chain-writer` role; `reader`: wherever executions are read. */
  roles: { writer: boolean; reader: boolean };
  /** The process's promise metrics (commits, leadership, verifications); optional for tests. */
  metrics?: PromiseMetrics;
  leaseMs?: number;
  renewMs?: number;
  /** The transparency log kept by the writer (docs/TRACE-FORMAT.md, "The transparency log"). */
  log?: Omit<LogMaintainerOptions, 'storage' | 'logger'>;
  /** Witnesses asked to cosign the log's checkpoints (SUITE_TLOG_WITNESSES, docs/WITNESS.md); only the writer asks. */
  witnesses?: readonly CollectedWitness[];
}

export interface RunningExecutionActors {
  readonly writer: ExecutionWriterActor | undefined;
  readonly reader: ExecutionReaderActor | undefined;
  /** Lists, conditions, lineage and aggregates (docs/EXECUTION-READS.md); started with the reader. */
  readonly readModels: ExecutionReadModelActor | undefined;
  readonly log: ExecutionLogMaintainer | undefined;
  /** Present when witnesses are configured and this process writes the chain. */
  readonly witnesses: WitnessCollector | undefined;
  /** Readers first (no new work), then the writer commits what it holds and gives up its lease. */
  stop(): Promise<void>;
}

/** Start the execution actors this process runs; `bus.flush()` afterwards makes them reachable over NATS. */
export async function startExecutionActors(o: ExecutionActorsOptions): Promise<RunningExecutionActors> {
  const reader = o.roles.reader ? new ExecutionReaderActor({ bus: o.bus, storage: o.storage, ...(o.metrics ? { metrics: o.metrics } : {}) }) : undefined;
  const readModels = o.roles.reader ? new ExecutionReadModelActor({ bus: o.bus, storage: o.storage }) : undefined;
  const logReader = o.roles.reader ? new ExecutionLogReaderActor({ bus: o.bus, storage: o.storage }) : undefined;
  const collector =
    o.roles.writer && o.log && o.witnesses && o.witnesses.length > 0
      ? new WitnessCollector({ storage: o.storage, witnesses: o.witnesses, ...(o.logger ? { logger: o.logger } : {}) })
      : undefined;
  const unwatch = collector && o.metrics ? o.metrics.watchWitnesses(collector) : undefined;
  const log =
    o.roles.writer && o.log
      ? new ExecutionLogMaintainer({
          ...o.log,
          storage: o.storage,
          ...(o.logger ? { logger: o.logger } : {}),
          ...(collector ? { onCheckpoint: (c: { size: number; note: string }) => collector.published(c) } : {}),
        })
      : undefined;
  const writer = o.roles.writer
    ? new ExecutionWriterActor({
        bus: o.bus,
        storage: o.storage,
        signer: o.signer,
        holder: o.holder,
        ...(o.logger ? { logger: o.logger } : {}),
        ...(log ? { log } : {}),
        ...(o.leaseMs !== undefined ? { leaseMs: o.leaseMs } : {}),
        ...(o.metrics ? { metrics: o.metrics.chains } : {}),
        ...(o.renewMs !== undefined ? { renewMs: o.renewMs } : {}),
      })
    : undefined;
  reader?.start();
  readModels?.start();
  logReader?.start();
  try {
    await writer?.start();
  } catch (err) {
    await logReader?.stop();
    await readModels?.stop();
    await reader?.stop();
    await o.signer.close();
    throw err;
  }
  let stopping: Promise<void> | undefined;
  return {
    writer,
    reader,
    readModels,
    log,
    witnesses: collector,
    stop: () =>
      (stopping ??= (async () => {
        await logReader?.stop();
        await readModels?.stop();
        await reader?.stop();
        await writer?.stop();
        // What the writer committed last is integrated before the log stops (else the next leader does it).
        await log?.settled();
        await log?.pause();
        await collector?.stop();
        unwatch?.();
        await o.signer.close();
      })()),
  };
}
