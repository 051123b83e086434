/** Scheduling arithmetic: cron validation and next runs, the catch-up rule, retry delays. */
export { checkCron, nextRunAfter, nextAfterFiring, type CronCheck } from './cron.ts';
export { retryDelay, hasAttemptLeft, MAX_RETRY_DELAY_MS, type RetryPolicy, type BackoffKind } from './backoff.ts';
export { taskProblem, type TaskDefinition } from './task.ts';
