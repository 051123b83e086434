import type { ServiceName, SuiteConfig } from './config.ts';

/**
 * The base URL at which one process reaches a listener (the dashboard's probes and proxy):
 * `SUITE_<LISTENER>_URL` when set (it runs on another host), else the port it is bound to in this
 * process, else `SUITE_HOST` and its configured port. A wildcard bind address is reached on
 * loopback. Undefined when the port is 0 and the listener is not in this process: nothing says
 * which port it got.
 */
export function listenerUrl(config: Pick<SuiteConfig, 'host' | 'ports' | 'listenerUrls'>, service: ServiceName, boundPort?: number): string | undefined {
  const configured = config.listenerUrls[service];
  if (configured !== undefined) return configured;
  const port = boundPort ?? config.ports[service];
  if (port === 0) return undefined;
  const host = config.host;
  const h = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${h}:${port}`;
}
