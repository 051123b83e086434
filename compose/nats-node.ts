/**
 * A private nats-server of a test (the machine's /usr/sbin/nats-server, or SUITE_TEST_NATS_SERVER),
 * alone with JetStream and a store of its own, or one node of a cluster (core NATS). The first start binds
 * port 0 (`-p -1`, `-cluster nats://127.0.0.1:-1`) and reads the ports the server reports; a
 * restart binds the same ones again, so that clients that knew the node find it back.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Child, type Exit } from './child.ts';

export const NATS_SERVER = process.env.SUITE_TEST_NATS_SERVER ?? '/usr/sbin/nats-server';

export interface NatsNodeOptions {
  readonly name: string;
  /** Its working folder (and JetStream store), a folder of the test's. */
  readonly storeDir: string;
  readonly env: Readonly<Record<string, string>>;
  /** Join a cluster: its name and the route URLs of nodes already up (none for the first node). */
  readonly cluster?: { readonly name: string; readonly routes: readonly string[] };
  /**
   * Tell clients only this node's address, never the cluster's others (`--no_advertise`), so a client
   * given this node alone cannot reconnect elsewhere: a partition of that client is then real.
   */
  readonly noAdvertise?: boolean;
  /** Serve the monitoring endpoints (/connz, /varz) on a port of its own choosing. */
  readonly monitor?: boolean;
  /** A configuration file's text (e.g. compose/nats-auth.conf); its `$VARIABLE`s come from `env`. */
  readonly config?: string;
}

const CLIENT_LINE = /Listening for client connections on [^\s]+:(\d+)$/;
const ROUTE_LINE = /Listening for route connections on [^\s]+:(\d+)$/;
const MONITOR_LINE = /Starting http monitor on [^\s]+:(\d+)$/;

export class NatsNode {
  readonly o: NatsNodeOptions;
  #child: Child | undefined;
  #port: number | undefined;
  #routePort: number | undefined;
  #monitorPort: number | undefined;

  constructor(o: NatsNodeOptions) {
    if (!existsSync(NATS_SERVER)) {
      throw new Error(`no nats-server at ${NATS_SERVER}: install Debian's nats-server or set SUITE_TEST_NATS_SERVER. Tests needing it are never skipped.`);
    }
    this.o = o;
  }

  get url(): string {
    if (this.#port === undefined) throw new Error(`nats node ${this.o.name} was never started`);
    return `nats://127.0.0.1:${this.#port}`;
  }

  /** Where other nodes route to this one. */
  get routeUrl(): string {
    if (this.#routePort === undefined) throw new Error(`nats node ${this.o.name} is not a cluster node`);
    return `nats://127.0.0.1:${this.#routePort}`;
  }

  /** Client connections open on this node now (its /varz), for a test choosing which node to kill. */
  async connections(): Promise<number> {
    if (this.#monitorPort === undefined) throw new Error(`nats node ${this.o.name} has no monitor (option monitor)`);
    const res = await fetch(`http://127.0.0.1:${this.#monitorPort}/varz`, { signal: AbortSignal.timeout(5000) });
    return ((await res.json()) as { connections: number }).connections;
  }

  /** The names of the clients connected to this node now (its /connz): the suite names each connection by its holder, `host:pid:random`. */
  async clientNames(): Promise<string[]> {
    if (this.#monitorPort === undefined) throw new Error(`nats node ${this.o.name} has no monitor (option monitor)`);
    const res = await fetch(`http://127.0.0.1:${this.#monitorPort}/connz?limit=1024`, { signal: AbortSignal.timeout(5000) });
    return ((await res.json()) as { connections?: Array<{ name?: string }> }).connections?.map((c) => c.name ?? '') ?? [];
  }

  get running(): boolean {
    return this.#child?.running ?? false;
  }

  /** Starts it (on its earlier ports when restarted) and resolves once it accepts clients. */
  async start(): Promise<void> {
    if (this.running) throw new Error(`nats node ${this.o.name} is already running`);
    const { cluster } = this.o;
    const args = ['-a', '127.0.0.1', '-p', String(this.#port ?? -1), '-n', this.o.name];
    // JetStream on a lone server (as the shared test NATS runs). A clustered JetStream needs every
    // node's routes before it starts, which ports of the nodes' own choosing cannot give; the suite
    // uses core NATS only (no JetStream, no KV), so its cluster nodes run without it.
    if (!cluster) args.push('-js', '-sd', this.o.storeDir);
    if (this.o.monitor) args.push('-m', String(this.#monitorPort ?? -1));
    if (cluster) {
      args.push('--cluster_name', cluster.name, '--cluster', `nats://127.0.0.1:${this.#routePort ?? -1}`);
      if (cluster.routes.length > 0) args.push('--routes', cluster.routes.join(','));
      if (this.o.noAdvertise) args.push('--no_advertise=true');
    }
    mkdirSync(this.o.storeDir, { recursive: true });
    if (this.o.config !== undefined) {
      writeFileSync(join(this.o.storeDir, 'nats.conf'), this.o.config, { mode: 0o600 });
      args.push('-c', join(this.o.storeDir, 'nats.conf'));
    }
    const child = new Child({ name: this.o.name, command: NATS_SERVER, args, cwd: this.o.storeDir, env: { ...this.o.env } });
    this.#child = child;
    const port = CLIENT_LINE.exec(await child.line((l) => CLIENT_LINE.test(l), 'start'))?.[1];
    this.#port = Number(port);
    if (cluster) this.#routePort = Number(ROUTE_LINE.exec(await child.line((l) => ROUTE_LINE.test(l), 'start'))?.[1]);
    if (this.o.monitor) this.#monitorPort = Number(MONITOR_LINE.exec(await child.line((l) => MONITOR_LINE.test(l), 'start'))?.[1]);
    await child.line((l) => l.includes('Server is ready'), 'start');
  }

  signal(sig: NodeJS.Signals): void {
    this.#child?.signal(sig);
  }

  exited(): Promise<Exit> {
    return this.#child?.exited() ?? Promise.resolve({ code: null, signal: null });
  }

  stop(graceMs = 5000): Promise<Exit> {
    return this.#child?.stop(graceMs) ?? Promise.resolve({ code: null, signal: null });
  }

  output(): string {
    return this.#child?.output() ?? '';
  }
}
