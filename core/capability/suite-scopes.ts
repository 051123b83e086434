import { scopeGrantsOne } from './scope.ts';

/**
 * The scopes the suite's own routes require (issue 36, item 2). A scope naming one of the suite's
 * own resources (`audit`, `execution`, `auth`, ...) must grant at least one of these, so a typo such
 * as `audit:raed` is refused at issue time instead of minting a token that can do nothing. Scopes
 * on any other resource (an agent's own `crm:write`, the gateway's `mcp:<server>:...`) stay free.
 * integration/suite/route-doc.test.ts checks this list against every route's declared authority.
 */
export const SUITE_SCOPES: readonly string[] = [
  'approval:read',
  'audit:read',
  'auth:token:create',
  'auth:token:revoke',
  'auth:token:validate',
  'bench:read',
  'bench:run',
  'connector:execute',
  'connector:read',
  'execution:read',
  'execution:record',
  'gateway:read',
  'identity:read',
  'model:read',
  'oauth:client:admin',
  'oauth:read',
  'queue:read',
  'queue:write',
  'runtime:read',
  'schedule:create',
  'schedule:read',
  'tenant:manage',
  'trust:appeal',
  'trust:arbitrate',
  'trust:manage',
  'trust:read',
  'trust:verify',
  'trust:write',
];

/**
 * Scopes of the suite's own resources that routes check in their handlers rather than declare as
 * their authority: deciding a held gateway call (`approval:decide`, docs/MCP.md), registering an
 * OAuth client and giving consent (docs/OAUTH.md). Known, so never refused as typos.
 */
const CHECKED_IN_HANDLER_SCOPES: readonly string[] = ['approval:decide', 'oauth:client:register', 'oauth:consent'];

const KNOWN_SCOPES: readonly string[] = [...SUITE_SCOPES, ...CHECKED_IN_HANDLER_SCOPES];

/** The first segments of the suite's scopes: the resources the suite itself owns. */
export const SUITE_RESOURCES: ReadonlySet<string> = new Set(KNOWN_SCOPES.map((s) => s.split(':')[0]!));

/**
 * Why a well-formed scope is refused, or undefined when it is accepted: a scope on a suite resource
 * that grants none of the suite's scopes, with the nearest known one named.
 */
export function suiteScopeProblem(scope: string): string | undefined {
  const resource = scope.split(':')[0]!;
  if (!SUITE_RESOURCES.has(resource)) return undefined;
  if (KNOWN_SCOPES.some((known) => scopeGrantsOne(scope, known))) return undefined;
  const sameResource = KNOWN_SCOPES.filter((s) => s.startsWith(`${resource}:`));
  let nearest = sameResource[0]!;
  for (const s of sameResource) if (editDistance(scope, s) < editDistance(scope, nearest)) nearest = s;
  return (
    `scope "${scope}" names the suite's resource "${resource}" with an action it does not have ` +
    `(did you mean "${nearest}"? the ${resource} scopes are ${sameResource.join(', ')})`
  );
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of two neighbours. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min((d[i - 1] as number[])[j]! + 1, (d[i] as number[])[j - 1]! + 1, (d[i - 1] as number[])[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, (d[i - 2] as number[])[j - 2]! + 1);
      (d[i] as number[])[j] = v;
    }
  }
  return (d[a.length] as number[])[b.length]!;
}
