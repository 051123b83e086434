import type { TSchema } from 'typebox';

/**
 * What a connector is, for the built-ins (services/connectors/providers) and for the source the
 * generator writes alike: a manifest (what it needs and offers, with every action's input schema) and
 * the code behind it (verify, actions). The code reaches the world only through its context, whose
 * `http` goes through the SSRF guard.
 */

/** One configuration variable a connector reads (from the configuration, never from a request). */
export interface ConnectorVariable {
  readonly name: string;
  readonly description: string;
  /** A credential: its value is never shown, logged or returned, only whether it is set. */
  readonly secret: boolean;
  /** The connector is configured only when every required variable is set. */
  readonly required: boolean;
  readonly kind: 'url' | 'postgres-url' | 'text' | 'integer' | 'webhook-secret';
  readonly default?: string;
  readonly min?: number;
  readonly max?: number;
}

export interface ConnectorActionManifest {
  readonly name: string;
  readonly description: string;
  /** `read`: changes nothing at the provider; `write`: posts, creates or sends. */
  readonly effect: 'read' | 'write';
  readonly input: TSchema;
}

export interface ConnectorManifest {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly variables: readonly ConnectorVariable[];
  /** What POST /connectors/{id}/verify checks, in words (it never writes). */
  readonly verifies: string;
  readonly actions: readonly ConnectorActionManifest[];
}

export interface HttpCall {
  readonly url: string;
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly timeoutMs?: number;
  /** Response bytes kept (the answer says when it was cut). */
  readonly maxBodyBytes?: number;
}

export interface HttpAnswer {
  readonly status: number;
  readonly body: string;
  readonly truncated: boolean;
}

/** What a connector's code is given per call. */
export interface ConnectorContext {
  /** This connector's variables that are set, defaults applied; secrets included (never echo them). */
  readonly settings: Readonly<Record<string, string>>;
  /** One HTTP exchange through the SSRF guard. */
  http(call: HttpCall): Promise<HttpAnswer>;
}

export interface Verification {
  /** What was checked and what the provider said, without any secret. */
  readonly detail: string;
}

/** A connector's action: its input has been checked against the manifest's schema before `run`. */
export type ConnectorActionRun = (ctx: ConnectorContext, input: never) => Promise<unknown>;

export interface Connector {
  readonly manifest: ConnectorManifest;
  /** A read-only credential check: it never posts, creates or changes anything. */
  verify(ctx: ConnectorContext): Promise<Verification>;
  readonly actions: Readonly<Record<string, ConnectorActionRun>>;
}

/**
 * Why a connector call failed, as a kind the service maps to an error code (docs/CONNECTORS.md):
 * `not-configured` (a required variable unset), `credentials-rejected` (the provider refused the
 * credentials), `provider-rejected` (the provider refused this request: its code is in the message),
 * `provider-unavailable` (unreachable, timed out, a 5xx or an answer we cannot read).
 */
export type ConnectorFailureKind = 'not-configured' | 'credentials-rejected' | 'provider-rejected' | 'provider-unavailable';

export class ConnectorError extends Error {
  readonly kind: ConnectorFailureKind;
  constructor(kind: ConnectorFailureKind, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ConnectorError';
    this.kind = kind;
  }
}
