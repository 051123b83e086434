import type { Logger } from 'pino';
import type { ConfigSection, ServiceName, SharedConfig } from '../../config/index.ts';
import type { Bus } from '../../bus/index.ts';
import type { MigrationSet, Storage } from '../../storage/index.ts';
import type { HmacKeyRing } from '../../core/capability/index.ts';
import type { AuditBatcher } from '../../actors/audit/index.ts';
import type { TokenChecker } from '../../actors/capability/index.ts';
import type { AuditSink, CapabilityVerifier, EdgeRoutes, Meter, TenantResolver } from '../../edge-http/index.ts';
import type { McpTool } from '../../edge-mcp/index.ts';
import type { MetricsRegistry } from '../../observability/index.ts';

/**
 * What a service is to the runtime: its section of the configuration, the roles it adds, how its
 * actors start, the routes it adds to a listener, and its migrations. The runtime (cli/runtime.ts)
 * and the edge factory (cli/edge.ts) loop over the list in services/index.ts; adding a service adds
 * a folder and one line there (docs/ARCHITECTURE.md, "Adding a service"). `S` is its own section:
 * its actors and routes see the shared configuration and that section, nothing of another service's.
 * They are methods, not function-typed fields, so that a module of any section is a `ServiceModule`
 * in the list (method parameters are compared both ways): the runtime hands each the whole
 * configuration, of which its section is a part.
 */
export interface ServiceModule<S extends object = object> {
  /** Short and unique; also the name of its migration set. */
  readonly name: string;
  /** The HTTP listener its routes join (several services may share one). */
  readonly listener?: ServiceName;
  /** Other listeners that serve the same routes (the dashboard serves the chain's reads same-origin). */
  readonly alsoOn?: readonly ServiceName[];
  /** Actor roles this service adds (`suite run actor:<name> ...`). */
  readonly actorRoles: readonly ActorRoleName[];
  /**
   * For each of its actor roles, a request subject that role serves: a responder on it shows the
   * role is up (the local cluster waits on it; the chain writer answers only once it leads).
   */
  readonly readiness?: Readonly<Partial<Record<ActorRoleName, string>>>;
  /** Its own numbered migrations (storage/migrate.ts, "migration sets"). */
  readonly migrations?: MigrationSet;
  /**
   * Its section of the configuration (`services/<name>/config.ts`): the variables only it reads,
   * parsed and checked at start with the rest (services/index.ts composes every module's section).
   */
  readonly config?: ConfigSection<S>;
  /** Start the actors of the roles this process takes (`ctx.has(role)`); return what to stop. */
  startActors?(ctx: ActorContext<S>): Promise<StartedActors>;
  /** The routes it serves on its listener; they talk to actors over the bus only. */
  routes?(ctx: RouteContext<S>): EdgeRoutes;
  /** Its routes as MCP tools (edge-mcp/): each with its route's scope and schema, one bus request. */
  readonly mcpTools?: () => readonly McpTool[];
}

export type ActorRoleName = `actor:${string}`;

/** What the runtime hands a service's actors: one of each per process. */
export interface ActorContext<S extends object = object> {
  /** The shared configuration and the service's own section. */
  readonly config: SharedConfig & S;
  readonly bus: Bus;
  readonly storage: Storage;
  readonly logger: Logger;
  /** This process's name in chain leases: host, pid and a random part. */
  readonly holder: string;
  /** Records every decision on the audit chain. */
  readonly audit: AuditBatcher;
  readonly ring: HmacKeyRing;
  /** Checks capability tokens against the revocation view; undefined in a process that checks none. */
  readonly checker: TokenChecker | undefined;
  /** The process's metrics registry (what `/metrics` of its edges serves). */
  readonly metrics: MetricsRegistry;
  /** Whether this process takes the role. */
  has(role: ActorRoleName): boolean;
}

export interface RunningPart {
  readonly name: string;
  stop(): Promise<void> | void;
}

/**
 * Shutdown order (cli/runtime.ts): `producers` (actors that record audit decisions) stop before the
 * audit sink flushes; `actors` after it, while the chain writer they may rely on is still up.
 */
export interface StartedActors {
  readonly producers?: readonly RunningPart[];
  readonly actors?: readonly RunningPart[];
  /** True while a part whose failure `/ready` must show keeps failing (the chain writers' commits). */
  readonly stalled?: () => boolean;
}

export interface RouteContext<S extends object = object> {
  /** The shared configuration and the service's own section. */
  readonly config: SharedConfig & S;
  readonly bus: Bus;
  readonly logger: Logger;
  /** The listener's capability check, for a route that holds its own authority (`/mcp`). */
  readonly verifier: CapabilityVerifier;
  /** The listener's audit sink. */
  readonly audit: AuditSink;
  /** The listener's tenant-key resolver and plan meter, for a route that meters on its own (`/mcp`'s gateway calls). */
  readonly tenants: TenantResolver;
  readonly meter: Meter;
  /** The MCP tools of every service module (`mcpTools`), in the order of the list. */
  readonly mcpTools: readonly McpTool[];
  /** The process's metrics registry (what `/metrics` of its edges serves). */
  readonly metrics: MetricsRegistry;
  /** Where this process reaches a listener (config's `listenerUrl`, with the ports its own edges got). */
  readonly listenerUrl: (service: ServiceName) => string | undefined;
}

/** A service module, frozen; the names of its roles are checked to be its own. Its section's type `S` is taken from its `config`. */
export function defineService<S extends object = object>(module: ServiceModule<S>): ServiceModule<S> {
  return Object.freeze({ ...module, actorRoles: Object.freeze([...module.actorRoles]) });
}
