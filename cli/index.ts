/** The `suite` command's pieces: roles and the runtime that starts them in one process. */
export { startSuite } from './runtime.ts';
export { parseRoles } from './roles.ts';
