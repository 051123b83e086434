/** Retention: each tenant's plan limit on how long its records and audit entries are kept. */
export { RetentionPruner } from './pruner.ts';
