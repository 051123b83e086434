import { spawn, type ChildProcess } from 'node:child_process';
import { PORT_VARIABLES } from '../config/index.ts';

/**
 * One OS process of the suite, as the local cluster runs it: spawned in its own process group (so a
 * stop reaches everything it started), its output kept in memory for the test that failed, and a
 * stop that is SIGTERM first and SIGKILL after a grace time.
 */

export interface ChildSpec {
  /** Shown in front of every captured line: `[actors] ...`. */
  readonly name: string;
  /** The program; default `process.execPath`, the Node that runs this code (24, the npm devDependency). */
  readonly command?: string;
  /** Its arguments, e.g. `['cli/suite.ts', 'run', 'edge:token']`. */
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** Lines kept per process (oldest dropped first); default 5000. */
  readonly keepLines?: number;
}

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export class Child {
  readonly spec: ChildSpec;
  readonly #lines: string[] = [];
  /** Lines seen so far, unprefixed (for `line`), and those waiting for one. */
  readonly #seen: string[] = [];
  readonly #watchers = new Set<(line: string) => void>();
  readonly #proc: ChildProcess;
  readonly #exited: Promise<Exit>;
  #exit: Exit | undefined;

  constructor(spec: ChildSpec) {
    this.spec = spec;
    this.#proc = spawn(spec.command ?? process.execPath, [...spec.args], {
      cwd: spec.cwd,
      env: spec.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#exited = new Promise<Exit>((resolve) => {
      this.#proc.once('exit', (code, signal) => {
        this.#exit = { code, signal };
        this.#note(`exited with ${signal ?? `code ${String(code)}`}`);
        resolve(this.#exit);
      });
      this.#proc.once('error', (err) => {
        this.#exit = { code: null, signal: null };
        this.#note(`failed to spawn: ${err.message}`);
        resolve(this.#exit);
      });
    });
    this.#capture(this.#proc.stdout, 'out');
    this.#capture(this.#proc.stderr, 'err');
    live.add(this);
    void this.#exited.then(() => live.delete(this));
  }

  get pid(): number | undefined {
    return this.#proc.pid;
  }

  get running(): boolean {
    return this.#exit === undefined;
  }

  /** Resolves when the process has exited (at once if it has). */
  exited(): Promise<Exit> {
    return this.#exited;
  }

  /** Everything the process printed so far, one `[name] ` prefixed line each. */
  output(): string {
    return this.#lines.join('\n');
  }

  /**
   * The first line printed (standard output or error, without the `[name] ` prefix) that `match`
   * accepts: among those printed since the process started when `since` is 'start', else among those
   * printed from now on. Rejects when the process exits first. An event to wait on, instead of time.
   */
  line(match: (line: string) => boolean, since: 'start' | 'now' = 'now'): Promise<string> {
    const earlier = since === 'start' ? this.#seen.find(match) : undefined;
    if (earlier !== undefined) return Promise.resolve(earlier);
    return new Promise<string>((resolve, reject) => {
      const watch = (l: string) => {
        if (!match(l)) return;
        this.#watchers.delete(watch);
        resolve(l);
      };
      this.#watchers.add(watch);
      void this.#exited.then((exit) => {
        if (!this.#watchers.delete(watch)) return;
        // Its last lines say why (a configuration it could not parse, a port taken).
        const last = this.#seen.slice(-5).join('\n');
        reject(
          new Error(`${this.spec.name} exited (${exit.signal ?? `code ${String(exit.code)}`}) before printing the line waited for; it printed last:\n${last}`),
        );
      });
    });
  }

  /** Send a signal to the whole process group; a no-op once the process has exited. */
  signal(sig: NodeJS.Signals): void {
    if (!this.running || this.pid === undefined) return;
    try {
      process.kill(-this.pid, sig);
    } catch {
      // ESRCH: it exited between the check and the kill.
    }
  }

  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`. Resolves with how it exited. */
  async stop(graceMs = 15_000): Promise<Exit> {
    if (!this.running) return this.#exited;
    this.signal('SIGTERM');
    const timer = setTimeout(() => {
      this.#note(`still running ${graceMs} ms after SIGTERM: SIGKILL`);
      this.signal('SIGKILL');
    }, graceMs);
    try {
      return await this.#exited;
    } finally {
      clearTimeout(timer);
    }
  }

  #note(text: string): void {
    this.#push(`[${this.spec.name}] (harness) ${text}`);
  }

  #push(line: string): void {
    this.#lines.push(line);
    const keep = this.spec.keepLines ?? 5000;
    if (this.#lines.length > keep) this.#lines.splice(0, this.#lines.length - keep);
  }

  #capture(stream: NodeJS.ReadableStream | null, tag: 'out' | 'err'): void {
    if (stream === null) return;
    let partial = '';
    const take = (p: string) => {
      this.#push(`[${this.spec.name}] ${tag === 'err' ? '! ' : ''}${p}`);
      this.#seen.push(p);
      if (this.#seen.length > (this.spec.keepLines ?? 5000)) this.#seen.shift();
      for (const watch of [...this.#watchers]) watch(p);
    };
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      for (const p of parts) take(p);
    });
    stream.on('end', () => {
      if (partial !== '') take(partial);
    });
  }
}

/**
 * Children still running when this process exits are killed (a test runner that ends without
 * calling stop must not leave suite processes holding ports and database connections).
 */
const live = new Set<Child>();
process.once('exit', () => {
  for (const child of live) child.signal('SIGKILL');
});

/**
 * The ports a `suite` process bound when told to bind port 0 (`zeroPorts`), read from the listener
 * lines it prints once up (`token      http://127.0.0.1:43121`, cli/first-screen.ts). Nothing picks a
 * free port, closes it and hopes to bind it later: another process could take it in between.
 */
export async function listenerPorts<S extends string>(child: Child, services: readonly S[]): Promise<Record<S, number>> {
  const ports = {} as Record<S, number>;
  await Promise.all(
    services.map(async (service) => {
      const listener = new RegExp(`^${service}\\s+http://\\S+:(\\d+)$`);
      const line = await child.line((l) => listener.test(l), 'start');
      ports[service] = Number(listener.exec(line)?.[1]);
    }),
  );
  return ports;
}

/** The port variable of each listener set to 0: the process binds ports of its own choosing. */
export function zeroPorts(): Record<string, string> {
  return Object.fromEntries(Object.values(PORT_VARIABLES).map((variable) => [variable, '0']));
}

/**
 * Poll `check` every `intervalMs` until it returns true (a throw counts as false); throw
 * `describe()` after `timeoutMs`, or at once with the reason `abort()` returns.
 */
export async function waitFor(
  check: () => Promise<boolean>,
  o: { timeoutMs: number; intervalMs?: number; describe: () => string; abort?: () => string | undefined },
): Promise<void> {
  const deadline = Date.now() + o.timeoutMs;
  for (;;) {
    const reason = o.abort?.();
    if (reason !== undefined) throw new Error(reason);
    if (await check().catch(() => false)) return;
    if (Date.now() >= deadline) throw new Error(o.describe());
    await new Promise((r) => setTimeout(r, o.intervalMs ?? 100));
  }
}
