/** The single writer of a hash chain: lease with fencing, compare-and-set head, group commit. */
export { ChainWriter, type ChainWriterOptions } from './writer.ts';
export type { ChainSpec } from './commit.ts';
export { FailureStreak } from './failure-streak.ts';
