import { Type } from 'typebox';
import type { ConnectorManifest, ConnectorVariable } from './types.ts';
import { Pattern, Str } from './schemas.ts';

/**
 * The built-in connectors' manifests: their variables and their actions' input schemas. The code
 * behind them (I/O) is in services/connectors/providers; services/connectors/config.ts reads
 * exactly these variables.
 */

const url = (name: string, description: string, extra: Partial<ConnectorVariable> = {}): ConnectorVariable => ({
  name,
  description,
  secret: false,
  required: false,
  kind: 'url',
  ...extra,
});

const GITHUB_OWNER = '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$';
const GITHUB_REPO = '^(?!\\.{1,2}$)[A-Za-z0-9._-]{1,100}$';
/** Headers the transport owns: a caller setting them could smuggle a second request or a new target. */
const TRANSPORT_HEADERS = ['host', 'connection', 'content-length', 'transfer-encoding', 'upgrade', 'keep-alive', 'te', 'trailer', 'expect'];
const anyCase = (word: string) => word.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`);
const HEADER_NAME = `^(?!(?:${TRANSPORT_HEADERS.map(anyCase).join('|')}|${anyCase('proxy')}-[A-Za-z-]*)$)[A-Za-z0-9!#$%&'*+.^_\`|~-]{1,64}$`;
const HEADER_VALUE = '^[\\x20-\\x7E\\t]*$';

export const SLACK: ConnectorManifest = {
  id: 'slack',
  title: 'Slack',
  description: 'Posts messages to Slack channels through the Slack Web API with a bot token.',
  variables: [
    { name: 'CONNECTOR_SLACK_BOT_TOKEN', description: 'Bot token (xoxb-...) of a Slack app with chat:write', secret: true, required: true, kind: 'text' },
    url('CONNECTOR_SLACK_API_URL', 'Base URL of the Slack Web API', { default: 'https://slack.com/api' }),
  ],
  verifies: 'auth.test with the bot token (reads who the token is; posts nothing)',
  actions: [
    {
      name: 'post_message',
      description: 'Post a message to a channel (chat.postMessage)',
      effect: 'write',
      input: Type.Object(
        {
          channel: Pattern('^[A-Za-z0-9#_.-]{1,80}$', 80, 'Channel id (C0123...) or name'),
          text: Str(40_000, 1, 'Message text (Slack mrkdwn)'),
          thread_ts: Type.Optional(Pattern('^[0-9]{1,12}\\.[0-9]{1,8}$', 24, 'Reply in this thread')),
        },
        { additionalProperties: false },
      ),
    },
  ],
};

const Repo = {
  owner: Pattern(GITHUB_OWNER, 39, 'Owner (user or organisation)'),
  repo: Pattern(GITHUB_REPO, 100, 'Repository name'),
};

export const GITHUB: ConnectorManifest = {
  id: 'github',
  title: 'GitHub',
  description: 'Creates and reads issues through the GitHub REST API with a token.',
  variables: [
    {
      name: 'CONNECTOR_GITHUB_TOKEN',
      description: 'Fine-grained or classic token with issues read/write on the repositories used',
      secret: true,
      required: true,
      kind: 'text',
    },
    url('CONNECTOR_GITHUB_API_URL', 'Base URL of the GitHub REST API (GitHub Enterprise: https://host/api/v3)', { default: 'https://api.github.com' }),
  ],
  verifies: 'GET /user with the token (reads who the token is; creates nothing)',
  actions: [
    {
      name: 'create_issue',
      description: 'Open an issue (POST /repos/{owner}/{repo}/issues)',
      effect: 'write',
      input: Type.Object(
        {
          ...Repo,
          title: Str(256, 1, 'Issue title'),
          body: Type.Optional(Str(65_536, 0, 'Issue body (Markdown)')),
          labels: Type.Optional(Type.Array(Str(50), { maxItems: 20, description: 'Label names' })),
        },
        { additionalProperties: false },
      ),
    },
    {
      name: 'get_issue',
      description: 'Read an issue (GET /repos/{owner}/{repo}/issues/{number})',
      effect: 'read',
      input: Type.Object(
        { ...Repo, number: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Issue number' }) },
        { additionalProperties: false },
      ),
    },
  ],
};

export const WEBHOOK: ConnectorManifest = {
  id: 'webhook',
  title: 'Webhook',
  description: 'Sends events to one configured endpoint, signed with Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature).',
  variables: [
    url('CONNECTOR_WEBHOOK_URL', 'Endpoint the events are POSTed to', { required: true }),
    {
      name: 'CONNECTOR_WEBHOOK_SECRET',
      description: 'Standard Webhooks signing secret (whsec_ followed by base64)',
      secret: true,
      required: true,
      kind: 'webhook-secret',
    },
    url('CONNECTOR_WEBHOOK_HEALTH_URL', 'A URL of the receiver answering GET with 2xx when it is up (what verify checks)'),
  ],
  verifies: 'GET on CONNECTOR_WEBHOOK_HEALTH_URL answers 2xx (sends no event)',
  actions: [
    {
      name: 'send',
      description: 'POST a signed event {type, timestamp, data} to the endpoint',
      effect: 'write',
      input: Type.Object(
        {
          type: Pattern('^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$', 128, 'Event type, e.g. invoice.paid'),
          data: Type.Record(Type.String({ maxLength: 256 }), Type.Unknown(), { description: 'Event payload (a JSON object)' }),
        },
        { additionalProperties: false },
      ),
    },
  ],
};

export const HTTP: ConnectorManifest = {
  id: 'http',
  title: 'HTTP',
  description: 'Makes one HTTP request to a public URL (through the SSRF guard); holds no credentials.',
  variables: [
    {
      name: 'CONNECTOR_HTTP_TIMEOUT_MS',
      description: 'Time allowed for a whole request',
      secret: false,
      required: false,
      kind: 'integer',
      default: '10000',
      min: 100,
      max: 120_000,
    },
  ],
  verifies: 'nothing to check: the http connector holds no credentials',
  actions: [
    {
      name: 'request',
      description: "One HTTP request; the answer's status and body (up to 64 KiB) are returned",
      effect: 'write',
      input: Type.Object(
        {
          method: Type.Union(
            ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => Type.Literal(m)),
            { description: 'HTTP method' },
          ),
          url: Pattern('^https?://[\\x21-\\x7E]+$', 2048, 'Absolute http(s) URL'),
          headers: Type.Optional(
            Type.Record(Type.String({ pattern: HEADER_NAME }), Type.String({ maxLength: 4096, pattern: HEADER_VALUE }), {
              maxProperties: 32,
              additionalProperties: false,
              description: "Request headers (not the transport's own: host, connection, content-length ...)",
            }),
          ),
          body: Type.Optional(Str(262_144, 0, 'Request body')),
        },
        { additionalProperties: false },
      ),
    },
  ],
};

export const POSTGRES: ConnectorManifest = {
  id: 'postgres',
  title: 'PostgreSQL',
  description: 'Runs one parameterised read-only query against a configured database, with a row cap and a statement timeout.',
  variables: [
    {
      name: 'CONNECTOR_POSTGRES_URL',
      description: 'postgres:// URL of the database (best with a role that may only read)',
      secret: true,
      required: true,
      kind: 'postgres-url',
    },
    {
      name: 'CONNECTOR_POSTGRES_ROW_LIMIT',
      description: 'Most rows a query returns',
      secret: false,
      required: false,
      kind: 'integer',
      default: '1000',
      min: 1,
      max: 100_000,
    },
    {
      name: 'CONNECTOR_POSTGRES_STATEMENT_TIMEOUT_MS',
      description: 'statement_timeout of each query',
      secret: false,
      required: false,
      kind: 'integer',
      default: '5000',
      min: 10,
      max: 120_000,
    },
  ],
  verifies: 'select 1 in a read-only transaction',
  actions: [
    {
      name: 'query',
      description: 'One SQL statement with $1.. parameters, in a read-only transaction',
      effect: 'read',
      input: Type.Object(
        {
          sql: Str(20_000, 1, 'One SQL statement; values as $1, $2 ...'),
          params: Type.Optional(
            Type.Array(Type.Union([Str(65_536, 0), Type.Number(), Type.Boolean(), Type.Null()]), { maxItems: 100, description: 'Values of $1, $2 ...' }),
          ),
        },
        { additionalProperties: false },
      ),
    },
  ],
};

/** The built-ins, in the order GET /connectors lists them. */
export const BUILT_IN_MANIFESTS: readonly ConnectorManifest[] = Object.freeze([WEBHOOK, HTTP, SLACK, GITHUB, POSTGRES]);

/** Every variable the built-ins read, for the connector service's configuration (which reads each once). */
export const CONNECTOR_VARIABLES: readonly ConnectorVariable[] = Object.freeze(BUILT_IN_MANIFESTS.flatMap((m) => m.variables));
