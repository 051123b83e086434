/**
 * One `node cli/suite.ts run ROLE...` process of a local cluster: its ports, its readiness (edges
 * answer /ready 200, actor roles answer on the bus), its output across restarts.
 */
import { PORT_VARIABLES, type ServiceName } from '../config/index.ts';
import { EDGE_ROLES, isEdgeRole, type ActorRole, type Role } from '../cli/roles.ts';
import { SERVICE_MODULES } from '../services/index.ts';
import type { NatsConnection } from '@nats-io/transport-node';
import { Child, listenerPorts, waitFor, type Exit } from './child.ts';
import { hasResponder } from './nats-probe.ts';

/** A reply on this subject shows the role is up (each service declares its roles'; services/kit). */
const ACTOR_SUBJECTS: Readonly<Record<string, string>> = Object.assign({}, ...SERVICE_MODULES.map((s) => s.readiness ?? {}));

export interface ProcessPlan {
  readonly name: string;
  readonly roles: readonly Role[];
  /** Environment of this process only, over the cluster's (e.g. its own SUITE_NATS_URL). */
  readonly env?: Readonly<Record<string, string>>;
}

export interface Shared {
  readonly env: Readonly<Record<string, string>>;
  readonly probe: NatsConnection;
  readonly readyTimeoutMs: number;
  /** The repository root: children run `cli/suite.ts` from there. */
  readonly cwd: string;
}

/** One process of the cluster; it keeps its ports across restarts, so its URLs stay the same. */
export class ClusterProcess {
  readonly name: string;
  readonly roles: readonly Role[];
  readonly #env: Readonly<Record<string, string>>;
  readonly #shared: Shared;
  #ports: Partial<Record<ServiceName, number>> = {};
  #child: Child | undefined;
  #earlier: string[] = [];

  constructor(plan: ProcessPlan, shared: Shared) {
    this.name = plan.name;
    this.roles = plan.roles;
    this.#env = plan.env ?? {};
    this.#shared = shared;
  }

  get services(): ServiceName[] {
    return this.roles.filter(isEdgeRole).map((r) => EDGE_ROLES[r]);
  }

  get running(): boolean {
    return this.#child?.running ?? false;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  url(service: ServiceName, path = ''): string {
    const port = this.#ports[service];
    if (port === undefined) throw new Error(`process ${this.name} serves no ${service} edge`);
    return `http://127.0.0.1:${port}${path}`;
  }

  /**
   * Spawn and wait until ready. The first start binds port 0 for each edge and reads the ports the
   * process reports (listenerPorts); a restart binds those again, so its URLs stay the same.
   */
  async start(): Promise<void> {
    if (this.running) throw new Error(`process ${this.name} is already running`);
    const child = this.#spawn();
    if (Object.keys(this.#ports).length === 0 && this.services.length > 0) {
      this.#ports = await listenerPorts(child, this.services).catch((err: unknown) => {
        throw new Error(`process ${this.name} did not report its ports: ${(err as Error).message}\n${child.output()}`);
      });
    }
    await this.waitReady();
  }

  /** Until every edge of the process answers /ready 200 and each of its actor roles answers the bus. */
  async waitReady(timeoutMs = this.#shared.readyTimeoutMs): Promise<void> {
    const child = this.#child;
    if (child === undefined) throw new Error(`process ${this.name} was never started`);
    const isActor = (r: Role): r is ActorRole => !isEdgeRole(r);
    const pending = new Set<string>([...this.services, ...this.roles.filter(isActor)]);
    const isReady = async (item: string): Promise<boolean> => {
      const subject = ACTOR_SUBJECTS[item];
      if (subject !== undefined) return hasResponder(this.#shared.probe, subject);
      const ready = await fetch(this.url(item as ServiceName, '/ready'), { signal: AbortSignal.timeout(1000) });
      return ready.status === 200;
    };
    await waitFor(
      async () => {
        for (const item of [...pending]) if (await isReady(item)) pending.delete(item);
        return pending.size === 0;
      },
      {
        timeoutMs,
        abort: () => (child.running ? undefined : `process ${this.name} exited before it was ready:\n${child.output()}`),
        describe: () => `process ${this.name} not ready after ${timeoutMs} ms (waiting for ${[...pending].join(', ')}):\n${child.output()}`,
      },
    );
  }

  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs = 10_000): Promise<Exit> {
    return this.#child?.stop(graceMs) ?? Promise.resolve({ code: null, signal: null });
  }

  /** Signal the process group without waiting (e.g. SIGKILL for a crash). */
  signal(sig: NodeJS.Signals): void {
    this.#child?.signal(sig);
  }

  /** The first line of the running incarnation that `match` accepts (Child.line). */
  line(match: (line: string) => boolean, since: 'start' | 'now' = 'now'): Promise<string> {
    if (this.#child === undefined) return Promise.reject(new Error(`process ${this.name} was never started`));
    return this.#child.line(match, since);
  }

  exited(): Promise<Exit> {
    return this.#child?.exited() ?? Promise.resolve({ code: null, signal: null });
  }

  /** Output of this process, earlier incarnations included. */
  output(): string {
    return [...this.#earlier, this.#child?.output() ?? ''].filter((s) => s !== '').join('\n');
  }

  #spawn(): Child {
    if (this.#child !== undefined) this.#earlier.push(this.#child.output());
    const env: Record<string, string> = { ...this.#shared.env, ...this.#env };
    for (const service of this.services) env[PORT_VARIABLES[service]] = String(this.#ports[service] ?? 0);
    this.#child = new Child({ name: this.name, args: ['cli/suite.ts', 'run', ...this.roles], env, cwd: this.#shared.cwd });
    return this.#child;
  }
}
