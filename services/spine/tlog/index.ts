/**
 * The execution chain as a transparency log (docs/TRACE-FORMAT.md, "The transparency log"), in one
 * place but for what must sit elsewhere:
 * - here: the writer (maintainer.ts: the tree kept as records commit, checkpoints), its storage
 *   (store.ts: tiles, state, checkpoints, pruned records), its reads on the bus (reader-actor.ts),
 *   the witnesses' cosignatures (witness-collector.ts), its configuration (config.ts: the origin and
 *   the witnesses, `SUITE_TLOG_ORIGIN`, `SUITE_TLOG_WITNESSES`);
 * - core/tlog: the pure parts (hashing, proofs, tiles, notes, the witness decision, fsck) and
 *   layout.ts, the paths of every resource, shared by the routes and every reader;
 * - services/spine/routes/execution-log.ts: its HTTP routes; bus/schemas: their messages;
 * - storage/migrations/010_execution_log.sql: its tables (among the suite's numbered migrations);
 * - witness/: the witness, a package of its own; cli/verify-log*.ts: `suite verify --log`.
 */
export { ExecutionLogMaintainer, type LogMaintainerOptions } from './maintainer.ts';
export { logEntry } from './log-entry.ts';
export { ExecutionLogReaderActor } from './reader-actor.ts';
export { WitnessCollector, type CollectedWitness } from './witness-collector.ts';
export { readCheckpoint, readLogState, readLogTiles } from './store.ts';
