import { randomBytes } from 'node:crypto';
import { createBus, createMemoryNetwork, type Bus } from '../bus/index.ts';
import type { Storage } from '../storage/index.ts';
import { createEdgeApp, type EdgeApp } from '../edge-http/index.ts';
import { RecordingAudit } from './edge-doubles.ts';
import { executionLogRoutes, executionReadRoutes, executionRoutes } from '../services/spine/index.ts';
import { edgeVerifier } from '../cli/edge.ts';
import { createLogger, createMetricsRegistry } from '../observability/index.ts';
import { mintToken, TokenChecker } from '../actors/capability/index.ts';
import { createHmacKeyRing, type HmacKeyRing } from '../core/capability/index.ts';
import { RevocationActor, RevocationView } from '../services/token/revocation/index.ts';
import { createTraceSigner, type ExecutionRecord } from '../core/chain/index.ts';
import { startExecutionActors, type ExecutionActorsOptions, type RunningExecutionActors } from '../services/spine/executions/index.ts';

/**
 * Test-only: the real token-service edge with the execution routes, over the real capability check
 * (HMAC tokens, TokenChecker, revocation view fed by the revocation actor), the memory bus and the
 * real execution actors on the storage given. Nothing is mocked; only cli/ wiring is left out.
 */
export interface ExecutionHarness {
  readonly bus: Bus;
  readonly storage: Storage;
  readonly app: EdgeApp;
  readonly actors: RunningExecutionActors;
  /** Everything the edge and the actors logged, as written. */
  logText(): string;
  /** A real capability token (HS256, the harness's secret). */
  token(scope: string[], claims?: { sub?: string; prf?: boolean; ten?: string }): Promise<string>;
  /** POST /executions with a bearer token carrying `execution:record` unless one is given. */
  record(
    body: unknown,
    o?: { token?: string; idempotencyKey?: string },
  ): Promise<{ status: number; body: ExecutionRecord & { error?: { code: string; message: string } } }>;
  /** Stop the execution actors and start them again as a new process would: new holder, this key. */
  restartWriter(tracePrivateKeyPem: string | undefined): Promise<void>;
  stop(): Promise<void>;
}

export interface ExecutionHarnessOptions {
  storage: Storage;
  /** Undefined: an ephemeral key, as with SUITE_TRACE_PRIVATE_KEY unset. */
  tracePrivateKeyPem?: string | undefined;
  leaseMs?: number;
  /** Keep the transparency log too (origin and checkpoint key), as `suite start` does. */
  log?: ExecutionActorsOptions['log'];
}

export async function startExecutionHarness(o: ExecutionHarnessOptions): Promise<ExecutionHarness> {
  const written: string[] = [];
  const logger = createLogger({ level: 'info', service: 'token', destination: { write: (line: string) => written.push(line) } });
  const bus = createBus(createMemoryNetwork().connect());
  const ring = await createHmacKeyRing([randomBytes(32).toString('hex')]);
  const revocation = new RevocationActor({ bus, storage: o.storage, heartbeatMs: 200, logger });
  revocation.start();
  const view = new RevocationView({ bus, stalenessMs: 5_000, logger });
  await view.start();
  const checker = new TokenChecker({ ring, revocations: view });
  const start = (pem: string | undefined) =>
    startExecutionActors({
      bus,
      storage: o.storage,
      signer: createTraceSigner(pem),
      holder: `test-${randomBytes(4).toString('hex')}`,
      logger: logger.child({ component: 'executions' }),
      roles: { writer: true, reader: true },
      ...(o.leaseMs !== undefined ? { leaseMs: o.leaseMs } : {}),
      ...(o.log ? { log: o.log } : {}),
    });
  let actors = await start(o.tracePrivateKeyPem);
  const app = await createEdgeApp({
    service: 'token',
    logger,
    verifier: edgeVerifier(checker, `admin-${randomBytes(8).toString('hex')}`),
    audit: new RecordingAudit(),
    readiness: async () => ({ bus: bus.isConnected() }),
    rateLimit: { max: 1_000_000, windowMs: 60_000 },
    metrics: createMetricsRegistry(),
    accessLog: true,
    routes: async (app) => {
      await executionRoutes(bus)(app);
      await executionReadRoutes(bus)(app);
      await executionLogRoutes(bus)(app);
    },
  });
  await app.ready();
  const defaultToken = await mintFor(ring, ['execution:record', 'execution:read'], {});
  return {
    bus,
    storage: o.storage,
    app,
    get actors() {
      return actors;
    },
    logText: () => written.join(''),
    token: (scope, claims = {}) => mintFor(ring, scope, claims),
    async record(body, r = {}) {
      const res = await app.inject({
        method: 'POST',
        url: '/executions',
        payload: body as object,
        headers: { authorization: `Bearer ${r.token ?? defaultToken}`, ...(r.idempotencyKey !== undefined ? { 'idempotency-key': r.idempotencyKey } : {}) },
      });
      return { status: res.statusCode, body: res.json() };
    },
    async restartWriter(pem) {
      await actors.stop();
      actors = await start(pem);
    },
    async stop() {
      await app.close();
      await actors.stop();
      await view.stop();
      await revocation.stop();
      await bus.drain();
    },
  };
}

async function mintFor(ring: HmacKeyRing, scope: string[], c: { sub?: string; prf?: boolean; ten?: string }): Promise<string> {
  const minted = await mintToken(ring, {
    sub: c.sub ?? 'agent-under-test',
    scope,
    lifetimeSeconds: 3600,
    now: Math.floor(Date.now() / 1000),
    ...(c.prf ? { prf: true } : {}),
    ...(c.ten !== undefined ? { ten: c.ten } : {}),
  });
  return minted.token;
}

/** A valid POST /executions body; override any field. */
export function executionBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    subject: 'agent-crm',
    scope: ['crm:write'],
    module: 'crm',
    action: 'update-contact',
    input: { contact: 42, fields: { email: 'x@example.com' } },
    output: { ok: true },
    outcome: 'success',
    ...overrides,
  };
}

/** Test-only: an injected request with a bearer token; the answer's status and parsed body. */
export async function callHarness(
  h: ExecutionHarness,
  method: 'GET' | 'POST',
  url: string,
  token: string,
  payload?: object,
): Promise<{ status: number; body: any }> {
  const res = await h.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
  return { status: res.statusCode, body: res.json() };
}

/**
 * Test-only: a fresh tenant on the harness. Its tokens read only its records, so every test counts
 * its own whatever the others appended.
 */
export async function harnessTenant(h: ExecutionHarness) {
  const ten = `ten_${randomBytes(4).toString('hex')}`;
  const reader = await h.token(['execution:read'], { ten });
  const record = async (body: Record<string, unknown>, claims: { sub?: string; prf?: boolean; scope?: string[] } = {}): Promise<ExecutionRecord> => {
    const token = await h.token(['execution:record', ...(claims.scope ?? [])], {
      ten,
      ...(claims.sub ? { sub: claims.sub } : {}),
      ...(claims.prf ? { prf: true } : {}),
    });
    const res = await h.record(executionBody(body), { token });
    if (res.status !== 201) throw new Error(`recording failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as ExecutionRecord;
  };
  return { ten, reader, record, get: (url: string) => callHarness(h, 'GET', url, reader) };
}
