import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * The JSON Schemas a tool list carries on the wire (docs/MCP.md, "Schemas"). TypeBox schemas carry
 * symbols, so the wire gets their JSON; and a sub-schema with no validation keyword at all (TypeBox's
 * `Type.Unknown()`, `{}`: any value) is spelled out as the explicit choice of every JSON type (one
 * `type` per branch: some clients map schemas onto a single-`type` dialect), which accepts exactly
 * the same values. Why: clients and linters (the MCP Inspector's `--strict`) read a
 * keyword-less schema as a forgotten one; the explicit spelling says "any JSON value" on purpose.
 */

export const ANY_JSON_VALUE = Object.freeze({
  anyOf: ['object', 'array', 'string', 'number', 'boolean', 'null'].map((type) => ({ type })),
});

/** Keywords that constrain a value; a schema with none of them accepts anything. */
const VALIDATION_KEYWORDS = new Set([
  'type',
  'enum',
  'const',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  '$ref',
  'properties',
  'patternProperties',
  'additionalProperties',
  'items',
  'prefixItems',
  'required',
  'if',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minItems',
  'maxItems',
  'uniqueItems',
  'contains',
  'minProperties',
  'maxProperties',
  'propertyNames',
  'dependentRequired',
  'dependentSchemas',
]);

/** Keys whose values are maps of sub-schemas, and keys whose values are a sub-schema or a list of them. */
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SCHEMA_VALUES = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'anyOf', 'oneOf', 'allOf', 'prefixItems'];

/** A schema as plain JSON, every keyword-less sub-schema spelled as {@link ANY_JSON_VALUE}. */
export function wireSchema(schema: unknown): Record<string, unknown> {
  return explicit(JSON.parse(JSON.stringify(schema)) as unknown) as Record<string, unknown>;
}

function explicit(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(explicit);
  if (node === null || typeof node !== 'object') return node;
  const schema = { ...(node as Record<string, unknown>) };
  for (const key of SCHEMA_MAPS) {
    const map = schema[key];
    if (map !== null && typeof map === 'object' && !Array.isArray(map)) {
      schema[key] = Object.fromEntries(Object.entries(map).map(([k, v]) => [k, explicit(v)]));
    }
  }
  for (const key of SCHEMA_VALUES) {
    if (typeof schema[key] === 'object' && schema[key] !== null) schema[key] = explicit(schema[key]);
  }
  const constrained = Object.keys(schema).some((k) => VALIDATION_KEYWORDS.has(k));
  return constrained ? schema : { ...schema, ...ANY_JSON_VALUE };
}

/** The trace beside every completed call's result: the signed record that attests it. */
const TraceSchema = {
  type: 'object',
  required: ['id', 'hash', 'prevHash', 'signature', 'keyId'],
  properties: {
    id: { type: 'string' },
    hash: { type: 'string' },
    prevHash: { type: 'string' },
    signature: { type: 'string' },
    keyId: { type: 'string' },
  },
} as const;

const ErrorDataSchema = { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' } } } as const;

/**
 * A tool's `outputSchema`: `{result, trace}` on success, `{error, trace}` on failure. `result` is the
 * route's response schema when the tool names one, else any JSON value, said explicitly.
 */
export function outputSchemaOf(result: unknown): Tool['outputSchema'] {
  return {
    type: 'object',
    required: ['trace'],
    properties: {
      result: result === undefined ? { description: 'What the route answers; absent when the call failed', ...ANY_JSON_VALUE } : wireSchema(result),
      error: ErrorDataSchema,
      trace: TraceSchema,
    },
  };
}
