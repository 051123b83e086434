import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Child, waitFor } from '../compose/child.ts';

/** The machine's nats-server (Debian's package), or SUITE_TEST_NATS_SERVER. */
export const NATS_SERVER = process.env.SUITE_TEST_NATS_SERVER ?? '/usr/sbin/nats-server';

export interface PrivateNatsServer {
  readonly url: string;
  readonly port: number;
  readonly child: Child;
  stop(): Promise<void>;
}

/**
 * A nats-server of the test's own, on a port the server chose itself (`-p -1`, read back from its
 * ports file: no "free port" race with parallel tests), with the configuration text given.
 * `env` reaches the server's process (a configuration's `$VARIABLE`s).
 */
export async function startPrivateNatsServer(o: { config?: string; env?: Record<string, string>; args?: string[] } = {}): Promise<PrivateNatsServer> {
  if (!existsSync(NATS_SERVER)) {
    throw new Error(`no nats-server at ${NATS_SERVER}: install Debian's nats-server or set SUITE_TEST_NATS_SERVER. This test is never skipped.`);
  }
  const dir = await mkdtemp(join(tmpdir(), 'suite-nats-'));
  const args = ['-a', '127.0.0.1', '-p', '-1', '--ports_file_dir', dir, ...(o.args ?? [])];
  if (o.config !== undefined) {
    await writeFile(join(dir, 'nats.conf'), o.config, { mode: 0o600 });
    args.push('-c', join(dir, 'nats.conf'));
  }
  const child = new Child({ name: 'nats-server', command: NATS_SERVER, cwd: dir, env: { PATH: process.env.PATH ?? '', ...o.env }, args });
  let url = '';
  await waitFor(async () => {
    const file = (await readdir(dir)).find((f) => f.endsWith('.ports'));
    if (file === undefined) return false;
    const ports = JSON.parse(await readFile(join(dir, file), 'utf8')) as { nats?: string[] };
    url = ports.nats?.[0] ?? '';
    return url !== '';
  }, {
    timeoutMs: 15_000,
    abort: () => (child.running ? undefined : `nats-server exited:\n${child.output()}`),
    describe: () => `nats-server wrote no ports file within 15 s:\n${child.output()}`,
  });
  return {
    url,
    port: Number(new URL(url).port),
    child,
    async stop() {
      await child.stop(5000);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
