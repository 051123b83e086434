import { SERVICES, type ServiceName } from '../../config/index.ts';

/** What the dashboard knows of one listener, from its last probe. */
export type ServiceHealth =
  | { service: ServiceName; state: 'ready'; checkedAt: string; latencyMs: number; checks: Record<string, boolean> }
  | { service: ServiceName; state: 'not-ready'; checkedAt: string; latencyMs: number; checks: Record<string, boolean>; reason: string }
  /** Not reached: the figure is UNKNOWN, never a guess; `reason` says why (shown on hover). */
  | { service: ServiceName; state: 'unknown'; checkedAt: string; reason: string };

/** The listeners the overview shows: every one but the dashboard's own (it is answering). */
export const WATCHED: readonly ServiceName[] = SERVICES.filter((s) => s !== 'dashboard');

/** A probe slower than this is a failure: the overview must turn UNKNOWN within a few seconds. */
const PROBE_TIMEOUT_MS = 1500;

/** Where a listener is reached (config's `listenerUrl`); undefined: nothing says where. */
export type LocateListener = (service: ServiceName) => string | undefined;

/** One probe of `GET /ready` (it names the failing dependencies); never throws. */
export async function probe(service: ServiceName, baseUrl: string | undefined): Promise<ServiceHealth> {
  const started = performance.now();
  const checkedAt = new Date().toISOString();
  if (baseUrl === undefined)
    return {
      service,
      state: 'unknown',
      checkedAt,
      reason: 'configured with port 0 in another process: its port is chosen at start and unknown to the dashboard (set its SUITE_<LISTENER>_URL)',
    };
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/ready`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
  } catch (err) {
    const c = (err as { cause?: { code?: string; message?: string } }).cause;
    const cause = c?.code ?? c?.message;
    const timedOut = (err as { name?: string }).name === 'TimeoutError';
    return {
      service,
      state: 'unknown',
      checkedAt,
      reason: timedOut ? `no answer from ${baseUrl} within ${PROBE_TIMEOUT_MS} ms` : `${baseUrl} could not be reached${cause ? ` (${cause})` : ''}`,
    };
  }
  const latencyMs = Math.round(performance.now() - started);
  let body: { checks?: Record<string, boolean> } | undefined;
  try {
    body = (await response.json()) as typeof body;
  } catch {
    return { service, state: 'unknown', checkedAt, reason: `${baseUrl}/ready answered ${response.status} without JSON` };
  }
  const checks = body?.checks ?? {};
  if (response.status === 200) return { service, state: 'ready', checkedAt, latencyMs, checks };
  if (response.status === 503) {
    const failing = Object.keys(checks).filter((k) => checks[k] !== true);
    return { service, state: 'not-ready', checkedAt, latencyMs, checks, reason: `not ready: ${failing.join(', ') || 'readiness check failed'}` };
  }
  return { service, state: 'unknown', checkedAt, reason: `${baseUrl}/ready answered ${response.status}` };
}

/**
 * Probes every listener on a fixed period and hands each round to `onRound`. Rounds do not overlap:
 * a slow round delays the next one rather than stacking probes.
 */
export function startHealthWatch(
  locate: LocateListener,
  intervalMs: number,
  onRound: (round: ServiceHealth[]) => void,
): { stop(): void; latest(): ServiceHealth[] } {
  let latest: ServiceHealth[] = WATCHED.map((service) => ({ service, state: 'unknown', checkedAt: new Date().toISOString(), reason: 'not probed yet' }));
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const round = async () => {
    latest = await Promise.all(WATCHED.map((s) => probe(s, locate(s))));
    if (stopped) return;
    onRound(latest);
    timer = setTimeout(() => void round(), intervalMs);
    timer.unref();
  };
  void round();
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
    latest: () => latest,
  };
}
