import type { ServiceName } from '../config/index.ts';
import { SERVICE_MODULES, type ActorRoleName } from '../services/index.ts';

/**
 * The roles a process can take (`suite run edge:token actor:revocation ...`). The embedded default
 * runs them all in one process over the memory bus.
 */
export const EDGE_ROLES = {
  'edge:token': 'token',
  'edge:scheduler': 'scheduler',
  'edge:bench': 'bench',
  'edge:connector': 'connector',
  'edge:trust': 'trust',
  'edge:dashboard': 'dashboard',
} as const satisfies Record<string, ServiceName>;

/** Each service declares its own actor roles (services/index.ts). */
export const ACTOR_ROLES: readonly ActorRoleName[] = Object.freeze(SERVICE_MODULES.flatMap((s) => s.actorRoles));

export type EdgeRole = keyof typeof EDGE_ROLES;
export type ActorRole = ActorRoleName;
export type Role = EdgeRole | ActorRole;

export const ALL_ROLES: readonly Role[] = [...ACTOR_ROLES, ...(Object.keys(EDGE_ROLES) as EdgeRole[])];

export function isRole(name: string): name is Role {
  return (ALL_ROLES as readonly string[]).includes(name);
}

export function isEdgeRole(role: Role): role is EdgeRole {
  return role in EDGE_ROLES;
}

/** Parse role arguments; `all` expands to every role. Unknown names are an error naming them. */
export function parseRoles(args: readonly string[]): Role[] {
  if (args.length === 0 || args.includes('all')) return [...ALL_ROLES];
  const unknown = args.filter((a) => !isRole(a));
  if (unknown.length > 0) throw new Error(`unknown role(s): ${unknown.join(', ')}; known: all, ${ALL_ROLES.join(', ')}`);
  return [...new Set(args as Role[])];
}
