import type { Logger } from 'pino';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Bus, RequestOf, Subscription } from '../../bus/index.ts';
import { SuiteError, subjects, type ErrorCode } from '../../bus/index.ts';
import { hashCanonical } from '../../core/chain/index.ts';
import {
  ConnectorError,
  configurationState,
  settingsOf,
  wellFormed,
  type Connector,
  type ConnectorContext,
  type ConnectorFailureKind,
} from '../../core/connectors/index.ts';
import { BusActor, replyOf } from '../../actors/base/index.ts';
import { guardedRequest, OutboundRefusedError, type OutboundGuard } from '../../actors/outbound/index.ts';
import { connectorSubjects, type ConnectorSummary } from './subjects.ts';
import { BUILT_IN_CONNECTORS } from './providers/index.ts';
import { redactor } from './redact.ts';

export interface ConnectorsActorOptions {
  readonly bus: Bus;
  /** The connectors' variables that are set (config.connectors). */
  readonly values: Readonly<Record<string, string>>;
  /** Every outbound HTTP call of every connector goes through it. */
  readonly guard: OutboundGuard;
  readonly logger: Logger;
  readonly connectors?: readonly Connector[];
  /** Time allowed for one provider exchange unless the connector says otherwise. */
  readonly httpTimeoutMs?: number;
}

const ACTION_CODES: Readonly<Record<ConnectorFailureKind, ErrorCode>> = {
  'not-configured': 'CONNECTOR_NOT_CONFIGURED',
  'credentials-rejected': 'CREDENTIALS_REJECTED',
  'provider-rejected': 'PROVIDER_REJECTED',
  'provider-unavailable': 'PROVIDER_UNAVAILABLE',
};

const MODULE = 'connector';

/**
 * The connectors actor: the registry (what each connector needs and offers, and whether it is
 * configured), read-only verification, and actions. An action's input is checked against its
 * schema and hashed before anything is sent; whatever the provider says, the attempt is recorded
 * on the execution chain (input and output as hashes, outcome success or failure).
 */
export class ConnectorsActor extends BusActor {
  readonly #o: ConnectorsActorOptions;
  readonly #byId: ReadonlyMap<string, Connector>;
  readonly #checks = new Map<TSchema, ReturnType<typeof Compile>>();
  readonly #redact: (text: string) => string;

  constructor(o: ConnectorsActorOptions) {
    super();
    this.#o = o;
    this.#byId = new Map((o.connectors ?? BUILT_IN_CONNECTORS).map((c) => [c.manifest.id, c]));
    this.#redact = redactor(o.connectors ?? BUILT_IN_CONNECTORS, o.values);
  }

  protected subscriptions(): Subscription[] {
    const { bus } = this.#o;
    const queue = { queue: 'connectors' };
    const unexpected = (err: unknown) => this.#logUnexpected(err);
    return [
      bus.serve(connectorSubjects.list, () => replyOf(async () => ({ connectors: [...this.#byId.values()].map((c) => this.#summary(c)) }), unexpected), queue),
      bus.serve(connectorSubjects.get, ({ data }) => replyOf(async () => this.#summary(this.#find(data.id)), unexpected), queue),
      bus.serve(connectorSubjects.verify, ({ data }) => replyOf(() => this.#verify(data.id), unexpected), queue),
      bus.serve(connectorSubjects.act, ({ data }) => replyOf(() => this.#act(data), unexpected), queue),
    ];
  }

  #find(id: string): Connector {
    const connector = this.#byId.get(id);
    if (connector === undefined) throw new SuiteError('NOT_FOUND', `no connector with id "${id.slice(0, 64)}"; GET /connectors lists them`);
    return connector;
  }

  #summary(c: Connector): ConnectorSummary {
    const state = configurationState(c.manifest, new Set(Object.keys(this.#o.values)));
    return {
      id: c.manifest.id,
      title: c.manifest.title,
      description: c.manifest.description,
      configured: state.configured,
      missing: [...state.missing],
      variables: state.variables.map((v) => ({ ...v })),
      verifies: c.manifest.verifies,
      actions: c.manifest.actions.map((a) => ({
        name: a.name,
        description: a.description,
        effect: a.effect,
        input: JSON.parse(JSON.stringify(a.input)) as unknown,
      })),
    };
  }

  #context(c: Connector): ConnectorContext {
    const { guard } = this.#o;
    const timeoutMs = this.#o.httpTimeoutMs ?? 15_000;
    return {
      settings: settingsOf(c.manifest, this.#o.values),
      async http(call) {
        const answer = await guardedRequest(guard, {
          url: call.url,
          method: call.method ?? 'GET',
          timeoutMs: call.timeoutMs ?? timeoutMs,
          maxBodyBytes: call.maxBodyBytes ?? 1024 * 1024,
          ...(call.headers !== undefined ? { headers: call.headers } : {}),
          ...(call.body !== undefined ? { body: call.body } : {}),
        });
        return { status: answer.status, body: answer.body.toString('utf8'), truncated: answer.truncated };
      },
    };
  }

  #notConfigured(c: Connector): void {
    const { missing } = configurationState(c.manifest, new Set(Object.keys(this.#o.values)));
    if (missing.length > 0) throw new SuiteError('CONNECTOR_NOT_CONFIGURED', `the ${c.manifest.id} connector is not configured: ${missing.join(', ')} not set`);
  }

  async #verify(id: string) {
    const connector = this.#find(id);
    this.#notConfigured(connector);
    try {
      const { detail } = await connector.verify(this.#context(connector));
      return { id, valid: true as const, detail: this.#redact(detail) };
    } catch (err) {
      const failure = this.#failure(err);
      // The spec's two answers of a failed check are 503: not configured, or rejected by the provider.
      if (failure.code === 'CONNECTOR_NOT_CONFIGURED' || failure.code === 'CREDENTIALS_REJECTED') throw new SuiteError(failure.code, failure.message);
      throw new SuiteError('SERVICE_UNAVAILABLE', `the ${id} connector's credentials could not be checked: ${failure.message}`);
    }
  }

  async #act(req: RequestOf<typeof connectorSubjects.act>) {
    const connector = this.#find(req.id);
    const manifest = connector.manifest.actions.find((a) => a.name === req.action);
    const run = connector.actions[req.action];
    if (manifest === undefined || run === undefined || !Object.hasOwn(connector.actions, req.action)) {
      throw new SuiteError('NOT_FOUND', `the ${req.id} connector has no action "${req.action}"; GET /connectors/${req.id} lists its actions`);
    }
    const problem = this.#problem(manifest.input, req.input);
    if (problem !== undefined) throw new SuiteError('INVALID_REQUEST', problem);
    let inputHash: string;
    try {
      inputHash = hashCanonical(req.input);
    } catch {
      throw new SuiteError('INVALID_REQUEST', 'input must be JSON that RFC 8785 can canonicalise');
    }
    this.#notConfigured(connector);

    let output: unknown;
    let failure: { code: ErrorCode; message: string } | undefined;
    const started = performance.now();
    try {
      output = wellFormed(await run(this.#context(connector), req.input as never));
    } catch (err) {
      failure = this.#failure(err);
      output = { error: failure };
    }
    const outcome = failure === undefined ? 'success' : 'failure';
    const record = await this.#record(req, inputHash, hashCanonical(output), outcome);
    // What happened, never what was sent: no input, no output, no credential.
    this.#o.logger.info(
      { connector: req.id, action: req.action, outcome, code: failure?.code, execution: record.id, ms: Math.round(performance.now() - started) },
      'connector action',
    );
    if (failure !== undefined) throw new SuiteError(failure.code, `${failure.message} (recorded as execution ${record.id})`);
    return { id: req.id, action: req.action, output, execution: record };
  }

  #problem(schema: TSchema, value: unknown): string | undefined {
    let check = this.#checks.get(schema);
    if (check === undefined) {
      check = Compile(schema);
      this.#checks.set(schema, check);
    }
    if (check.Check(value)) return undefined;
    const first = [...check.Errors(value)][0];
    return first === undefined ? "input does not match the action's schema" : `input${first.instancePath} ${first.message}`;
  }

  async #record(req: RequestOf<typeof connectorSubjects.act>, inputHash: string, outputHash: string, outcome: 'success' | 'failure') {
    const result = await this.#o.bus.request(subjects.executionsRecord, {
      claim: {
        subject: req.attested.sub,
        scope: ['connector:execute'],
        module: MODULE,
        action: `${req.id}.${req.action}`,
        outcome,
        inputHash,
        outputHash,
        cost: null,
        governance: null,
      },
      attested: req.attested,
      timestamp: req.timestamp,
    });
    if (!result.ok) {
      throw new SuiteError(
        'SERVICE_UNAVAILABLE',
        `the ${req.id}.${req.action} action ${outcome === 'success' ? 'ran' : 'was attempted'} but its execution trace could not be recorded (${result.error.code})`,
      );
    }
    return result.value.record;
  }

  /** A failure as a catalogue code and a message without any configured secret. */
  #failure(err: unknown): { code: ErrorCode; message: string } {
    if (err instanceof ConnectorError) return { code: ACTION_CODES[err.kind], message: this.#redact(err.message) };
    const refused = refusalIn(err);
    if (refused !== undefined) return { code: 'OUTBOUND_REFUSED', message: this.#redact(refused.message) };
    if (isTimeout(err)) return { code: 'PROVIDER_UNAVAILABLE', message: 'the provider did not answer in time' };
    const code = (err as { code?: unknown })?.code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return { code: 'PROVIDER_UNAVAILABLE', message: `the provider could not be reached (${code})` };
    if (typeof code === 'string' && /^UND_ERR_[A-Z_]+$/.test(code))
      return { code: 'PROVIDER_UNAVAILABLE', message: `the exchange with the provider failed (${code})` };
    this.#logUnexpected(err);
    return { code: 'PROVIDER_UNAVAILABLE', message: 'the call to the provider failed' };
  }

  /** Name and message only (a stack or a cause may carry request data), secrets redacted. */
  #logUnexpected(err: unknown): void {
    this.#o.logger.error({ err: { name: (err as Error)?.name, message: this.#redact(String((err as Error)?.message)) } }, 'connector call failed unexpectedly');
  }
}

/** The guard's refusal, thrown directly or as the cause of undici's error (redirects, connect). */
function refusalIn(err: unknown): OutboundRefusedError | undefined {
  for (let e = err, depth = 0; e !== undefined && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth += 1) {
    if (e instanceof OutboundRefusedError) return e;
  }
  return undefined;
}

function isTimeout(err: unknown): boolean {
  const name = (err as { name?: unknown })?.name;
  const code = (err as { code?: unknown })?.code;
  return (
    name === 'TimeoutError' ||
    name === 'AbortError' ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT'
  );
}
