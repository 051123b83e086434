/** The execution chain's route sets: on the token listener, and same-origin on the dashboard's. */
export { executionRoutes } from './executions.ts';
export { executionReadRoutes } from './execution-reads.ts';
export { executionLogRoutes } from './execution-log.ts';
