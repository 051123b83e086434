/** The execution chain as a transparency log: the tree kept as records commit, and its reads. */
export { ExecutionLogMaintainer, type LogMaintainerOptions } from './maintainer.ts';
export { logEntry } from './log-entry.ts';
export { ExecutionLogReaderActor } from './reader-actor.ts';
export { WitnessCollector, type CollectedWitness } from './witness-collector.ts';
