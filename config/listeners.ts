import type { ConfigReader } from './reader.ts';

/** The HTTP listeners: what each is called, its port and where another process reaches it. */
export const SERVICES = ['token', 'scheduler', 'bench', 'connector', 'trust', 'dashboard'] as const;
export type ServiceName = (typeof SERVICES)[number];

const DEFAULT_PORTS: Readonly<Record<ServiceName, number>> = {
  token: 8081,
  scheduler: 8082,
  bench: 8083,
  connector: 8084,
  trust: 8085,
  dashboard: 3001,
};

/** Where another process reaches each listener, when it runs elsewhere (ListenersConfig.listenerUrls). */
export const URL_VARIABLES: Readonly<Record<ServiceName, string>> = {
  token: 'SUITE_TOKEN_URL',
  scheduler: 'SUITE_SCHEDULER_URL',
  bench: 'SUITE_BENCH_URL',
  connector: 'SUITE_CONNECTOR_URL',
  trust: 'SUITE_TRUST_URL',
  dashboard: 'SUITE_DASHBOARD_URL',
};

export const PORT_VARIABLES: Readonly<Record<ServiceName, string>> = {
  token: 'SUITE_TOKEN_PORT',
  scheduler: 'SUITE_SCHEDULER_PORT',
  bench: 'SUITE_BENCH_PORT',
  connector: 'SUITE_CONNECTOR_PORT',
  trust: 'SUITE_TRUST_PORT',
  dashboard: 'SUITE_DASHBOARD_PORT',
};

export interface ListenersConfig {
  readonly host: string;
  readonly ports: Readonly<Record<ServiceName, number>>;
  /**
   * `SUITE_METRICS_PORT`: a process without listeners (actor roles only) serves its metrics on
   * this port (`GET /metrics`); unset, it serves none (docs/OBSERVABILITY.md, Scraping).
   */
  readonly metricsPort: number | undefined;
  /**
   * `SUITE_<LISTENER>_URL` (e.g. `SUITE_TRUST_URL=http://trust:8085`): where another process reaches
   * a listener that runs elsewhere (the dashboard's probes and same-origin proxy). Unset: a listener
   * of this process at its bound port, else `host` and the configured port.
   */
  readonly listenerUrls: Readonly<Partial<Record<ServiceName, string>>>;
  /**
   * `SUITE_PUBLIC_URL`: the token listener's public URL (no trailing slash), the OAuth issuer and the
   * base of its endpoints (docs/OAUTH.md); unset: the token listener's own address.
   */
  readonly publicUrl: string | undefined;
}

export function listenersConfig({ str, int, fail }: ConfigReader): ListenersConfig {
  const ports = {} as Record<ServiceName, number>;
  for (const service of SERVICES) ports[service] = int(PORT_VARIABLES[service], DEFAULT_PORTS[service], 0, 65535);
  const listenerUrls: Partial<Record<ServiceName, string>> = {};
  for (const service of SERVICES) {
    const name = URL_VARIABLES[service];
    const value = str(name);
    if (value === undefined) continue;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw fail(name, 'must be an http:// or https:// URL');
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '' || url.username !== '') {
      throw fail(name, 'must be an http:// or https:// URL with no query, fragment or credentials');
    }
    listenerUrls[service] = url.href.replace(/\/+$/, '');
  }
  return {
    host: str('SUITE_HOST') ?? '127.0.0.1',
    ports,
    metricsPort: str('SUITE_METRICS_PORT') === undefined ? undefined : int('SUITE_METRICS_PORT', 0, 0, 65_535),
    listenerUrls,
    publicUrl: publicUrlOf(str('SUITE_PUBLIC_URL'), fail),
  };
}

/** `SUITE_PUBLIC_URL`: an http(s) URL with no query or fragment; its trailing slash dropped. */
function publicUrlOf(value: string | undefined, fail: ConfigReader['fail']): string | undefined {
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw fail('SUITE_PUBLIC_URL', 'must be an absolute http(s) URL');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '') {
    throw fail('SUITE_PUBLIC_URL', 'must be an http(s) URL without query or fragment');
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/**
 * The base URL at which one process reaches a listener (the dashboard's probes and proxy):
 * `SUITE_<LISTENER>_URL` when set (it runs on another host), else the port it is bound to in this
 * process, else `SUITE_HOST` and its configured port. A wildcard bind address is reached on
 * loopback. Undefined when the port is 0 and the listener is not in this process: nothing says
 * which port it got.
 */
export function listenerUrl(config: Pick<ListenersConfig, 'host' | 'ports' | 'listenerUrls'>, service: ServiceName, boundPort?: number): string | undefined {
  const configured = config.listenerUrls[service];
  if (configured !== undefined) return configured;
  const port = boundPort ?? config.ports[service];
  if (port === 0) return undefined;
  const host = config.host;
  const h = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${h}:${port}`;
}
