import { createLogger, createMetricsRegistry, type MetricsRegistry } from '../observability/index.ts';
import { createEdgeApp, type EdgeOptions } from '../edge-http/app.ts';
import { MapVerifier, RecordingAudit } from './edge-doubles.ts';
import type { EdgeApp, EdgeRoutes } from '../edge-http/types.ts';

/** Test-only: an edge app with real fakes and the log captured as parsed lines. */
export interface TestApp {
  app: EdgeApp;
  verifier: MapVerifier;
  audit: RecordingAudit;
  metrics: MetricsRegistry;
  /** Raw log output, as written. */
  rawLog: () => string;
  logLines: () => Array<Record<string, unknown>>;
}

export const ADMIN_KEY = 'admin-key-for-tests-0123456789abcdef';

export async function testApp(routes: EdgeRoutes, overrides: Partial<EdgeOptions> = {}): Promise<TestApp> {
  const written: string[] = [];
  const verifier = new MapVerifier({ adminKey: ADMIN_KEY });
  const audit = new RecordingAudit();
  const metrics = createMetricsRegistry();
  const app = await createEdgeApp({
    service: 'token',
    logger: createLogger({ level: 'info', service: 'token', destination: { write: (line: string) => written.push(line) } }),
    verifier,
    audit,
    readiness: async () => ({ storage: true, bus: true }),
    rateLimit: { max: 1000, windowMs: 60_000 },
    metrics,
    accessLog: false,
    routes,
    ...overrides,
  });
  return {
    app,
    verifier,
    audit,
    metrics,
    rawLog: () => written.join(''),
    logLines: () =>
      written
        .join('')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
