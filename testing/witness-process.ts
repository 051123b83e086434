import { Child } from '../compose/child.ts';

const repo = new URL('..', import.meta.url).pathname;

export interface WitnessProcess {
  readonly child: Child;
  readonly url: string;
  readonly vkey: string;
  readonly port: number;
}

/**
 * `node cli/suite.ts witness` as a real process: its URL and vkey read from the lines it prints
 * once listening. `port` 0 (default) lets it pick one; a restart passes the port it had.
 */
export async function startWitnessProcess(o: {
  name: string;
  dataDir: string;
  keyName: string;
  logVkeys: readonly string[];
  port?: number;
}): Promise<WitnessProcess> {
  const child = new Child({
    name: o.name,
    cwd: repo,
    args: ['cli/suite.ts', 'witness', '--data-dir', o.dataDir, '--name', o.keyName, '--port', String(o.port ?? 0), ...o.logVkeys.flatMap((v) => ['--log', v])],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_OPTIONS: '' },
  });
  const url = (await child.line((l) => l.startsWith('witness listening on '), 'start')).slice('witness listening on '.length).trim();
  const vkey = (await child.line((l) => l.startsWith('witness vkey '), 'start')).slice('witness vkey '.length).trim();
  return { child, url, vkey, port: Number(new URL(url).port) };
}
