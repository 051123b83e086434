/** The single writer of a hash chain: lease with fencing, compare-and-set head, group commit. */
export { ChainWriter, type ChainSpec, type ChainWriterOptions } from './writer.ts';
export { FailureStreak } from './failure-streak.ts';
