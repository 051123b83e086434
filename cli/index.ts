/** The `suite` command's pieces: roles and the runtime that starts them in one process. */
export { startSuite, type RunningSuite, type SuiteOptions } from './runtime.ts';
export { startEdge, edgeVerifier, type RunningEdge } from './edge.ts';
export { parseRoles, ALL_ROLES, EDGE_ROLES, ACTOR_ROLES, type Role } from './roles.ts';
