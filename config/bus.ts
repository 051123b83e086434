import type { ConfigReader } from './reader.ts';

export interface BusConfig {
  /** `SUITE_NATS_URL`, comma-separated for a cluster; undefined = the in-process memory bus. */
  readonly natsServers: readonly string[] | undefined;
  /** `SUITE_BUS_NAMESPACE`: prefix of every subject on the wire, so deployments can share a broker. */
  readonly busNamespace: string | undefined;
  /** `SUITE_NATS_USER` / `SUITE_NATS_PASSWORD`: this process's NATS user (docs/EVENTS.md, "Authorization"). */
  readonly natsUser: { readonly user: string; readonly pass: string } | undefined;
}

export function busConfig({ str, fail }: ConfigReader): BusConfig {
  const natsServers = str('SUITE_NATS_URL')
    ?.split(',')
    .map((u) => u.trim())
    .filter((u) => u !== '');
  for (const url of natsServers ?? []) {
    if (!/^(nats|tls|ws|wss):\/\/[^\s]+$/.test(url) && !/^[\w.-]+:\d+$/.test(url)) {
      throw fail('SUITE_NATS_URL', `"${url}" is not a nats:// URL or host:port (separate several with commas)`);
    }
  }
  const busNamespace = str('SUITE_BUS_NAMESPACE');
  if (busNamespace !== undefined && !/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(busNamespace)) {
    throw fail('SUITE_BUS_NAMESPACE', 'must be dot-separated tokens of letters, digits, _ and -');
  }
  const user = str('SUITE_NATS_USER');
  const pass = str('SUITE_NATS_PASSWORD');
  if ((user === undefined) !== (pass === undefined)) {
    throw fail(user === undefined ? 'SUITE_NATS_USER' : 'SUITE_NATS_PASSWORD', 'SUITE_NATS_USER and SUITE_NATS_PASSWORD go together: set both or neither');
  }
  return {
    natsServers: natsServers !== undefined && natsServers.length > 0 ? natsServers : undefined,
    busNamespace,
    natsUser: user !== undefined && pass !== undefined ? { user, pass } : undefined,
  };
}
