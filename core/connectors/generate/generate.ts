import { Type, type TSchema } from 'typebox';
import { stringify } from 'yaml';
import { readIntent, type ActionIntent, type FieldIntent } from './intent.ts';
import { connectorSource } from './source.ts';

/**
 * POST /generate: a prompt in, a connector scaffold out — a manifest (YAML), the TypeScript of a
 * connector implementing the built-ins' interface, and the spec both are made from. Rule-based and
 * deterministic: the same prompt gives byte-identical output; no key, no model, no clock, no random.
 */

export const GENERATOR = Object.freeze({ name: 'suite-connector-generator', version: 1 });
export const MAX_PROMPT_LENGTH = 2000;

export interface GeneratedConnector {
  readonly manifest: string;
  readonly typescript: string;
  readonly spec: Record<string, unknown>;
}

function fieldSchema(field: FieldIntent): TSchema {
  const description = field.description;
  if (field.kind === 'integer') return Type.Integer({ minimum: 1, maximum: 100, description });
  if (field.kind === 'object') return Type.Record(Type.String({ maxLength: 128 }), Type.Unknown(), { description });
  if (field.name === 'id') return Type.String({ minLength: 1, maxLength: 256, description });
  return Type.String({ maxLength: 10000, description });
}

/** The action's input as plain JSON Schema (the same schema the TypeScript builds with TypeBox). */
function inputSchema(action: ActionIntent): unknown {
  const properties: Record<string, TSchema> = {};
  for (const f of action.fields) properties[f.name] = f.required ? fieldSchema(f) : Type.Optional(fieldSchema(f));
  return JSON.parse(JSON.stringify(Type.Object(properties, { additionalProperties: false }))) as unknown;
}

const upper = (id: string) => id.toUpperCase().replace(/-/g, '_');
const camel = (id: string) => id.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

export function generateConnector(prompt: string): { ok: true; value: GeneratedConnector } | { ok: false; message: string } {
  const text = prompt.trim();
  if (text === '') return { ok: false, message: 'body/prompt must not be empty: describe the connector, e.g. "create and get tickets in the Acme API"' };
  if (prompt.length > MAX_PROMPT_LENGTH) return { ok: false, message: `body/prompt must be at most ${MAX_PROMPT_LENGTH} characters` };
  const intent = readIntent(text);
  if ('problem' in intent) return { ok: false, message: `body/${intent.problem}` };

  const names = {
    urlVariable: `CONNECTOR_${upper(intent.id)}_API_URL`,
    tokenVariable: `CONNECTOR_${upper(intent.id)}_TOKEN`,
    exportName: `${camel(intent.id)}Connector`,
    importPath: '../../../core/connectors/index.ts',
  };
  const variables = [
    {
      name: names.urlVariable,
      description: `Base URL of the ${intent.title} API`,
      secret: false,
      required: intent.baseUrl === undefined,
      kind: 'url',
      ...(intent.baseUrl !== undefined ? { default: intent.baseUrl } : {}),
    },
    { name: names.tokenVariable, description: `Credential sent in the ${intent.authHeader} header`, secret: true, required: true, kind: 'text' },
  ];
  const actions = intent.actions.map((a) => ({
    name: a.name,
    description: a.description,
    effect: a.effect,
    method: a.method,
    path: a.path,
    input: inputSchema(a),
  }));
  const spec = {
    generator: { ...GENERATOR },
    id: intent.id,
    title: intent.title,
    file: `services/connectors/providers/${intent.id}.ts`,
    exportName: names.exportName,
    baseUrl: intent.baseUrl ?? null,
    auth: { header: intent.authHeader, prefix: intent.authPrefix },
    variables,
    verify: { method: 'GET', path: intent.verifyPath },
    actions,
  };
  const manifest = stringify(
    {
      apiVersion: 'suite.connectors/v1',
      kind: 'Connector',
      metadata: { id: intent.id, title: intent.title, generator: `${GENERATOR.name}/${GENERATOR.version}` },
      spec: { baseUrl: spec.baseUrl, auth: spec.auth, variables, verify: spec.verify, actions },
    },
    { lineWidth: 0 },
  );
  return { ok: true, value: { manifest, typescript: connectorSource(intent, names), spec } };
}
