/** Route sets of each service, registered on the shared edge app. */
export { tokenRoutes } from './token.ts';
export { executionRoutes } from './executions.ts';
