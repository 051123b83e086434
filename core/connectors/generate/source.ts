import type { ActionIntent, ConnectorIntent, FieldIntent } from './intent.ts';

/**
 * The TypeScript of a generated connector: the same `Connector` interface as the built-ins (its
 * manifest with TypeBox input schemas, a read-only verify, one function per action), calling the
 * API only through `ctx.http` (the SSRF guard). Every value taken from the prompt enters the source
 * as a JSON string literal or as an identifier made of [a-z0-9_] only, so no prompt can inject code.
 */

export interface SourceNames {
  readonly urlVariable: string;
  readonly tokenVariable: string;
  readonly exportName: string;
  /** From services/connectors/providers/<id>.ts, where the file is meant to live. */
  readonly importPath: string;
}

const lit = (value: string) => JSON.stringify(value);
const pascal = (name: string) =>
  name
    .split(/[_-]/)
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('');

function fieldSchema(field: FieldIntent): string {
  const base =
    field.kind === 'integer'
      ? `Type.Integer({ minimum: 1, maximum: 100, description: ${lit(field.description)} })`
      : field.kind === 'object'
        ? `Type.Record(Type.String({ maxLength: 128 }), Type.Unknown(), { description: ${lit(field.description)} })`
        : field.name === 'id'
          ? `Type.String({ minLength: 1, maxLength: 256, description: ${lit(field.description)} })`
          : `Type.String({ maxLength: 10000, description: ${lit(field.description)} })`;
  return field.required ? base : `Type.Optional(${base})`;
}

const inputName = (action: ActionIntent) => `${pascal(action.name)}Input`;

function actionBody(action: ActionIntent): string {
  const item = `\`/${action.collection}/\${encodeURIComponent(input.id)}\``;
  const collection = lit(`/${action.collection}`);
  const generic = action.fields.some((f) => f.name === 'fields');
  switch (action.verb) {
    case 'create':
      return `call(ctx, 'POST', ${collection}, ${generic ? 'input.fields' : 'input'})`;
    case 'read':
      return `call(ctx, 'GET', ${item})`;
    case 'delete':
      return `call(ctx, 'DELETE', ${item})`;
    case 'list':
      return `call(ctx, 'GET', ${collection} + query({ q: input.query, limit: input.limit }))`;
    case 'update':
      return generic
        ? `call(ctx, 'PATCH', ${item}, input.fields)`
        : `{\n      const { id: _id, ...fields } = input;\n      return call(ctx, 'PATCH', ${item}, fields);\n    }`;
  }
}

export function connectorSource(intent: ConnectorIntent, names: SourceNames): string {
  const hasList = intent.actions.some((a) => a.verb === 'list');
  const schemas = intent.actions.map((a) =>
    [`const ${inputName(a)} = Type.Object({`, ...a.fields.map((f) => `  ${f.name}: ${fieldSchema(f)},`), '}, { additionalProperties: false });'].join('\n'),
  );
  const manifestActions = intent.actions.map(
    (a) => `      { name: ${lit(a.name)}, description: ${lit(a.description)}, effect: ${lit(a.effect)}, input: ${inputName(a)} },`,
  );
  const runs = intent.actions.map((a) => `    ${a.name}: async (ctx: ConnectorContext, input: Static<typeof ${inputName(a)}>) => ${actionBody(a)},`);
  const urlVariable =
    intent.baseUrl !== undefined
      ? `      { name: URL_VARIABLE, description: ${lit(`Base URL of the ${intent.title} API`)}, secret: false, required: false, kind: 'url', default: ${lit(intent.baseUrl)} },`
      : `      { name: URL_VARIABLE, description: ${lit(`Base URL of the ${intent.title} API`)}, secret: false, required: true, kind: 'url' },`;
  return [
    '/**',
    ` * The ${intent.title.replace(/[^A-Za-z0-9 .-]/g, '')} connector, written by the suite's rule-based connector generator (no model)`,
    ` * from a prompt. Place it at services/connectors/providers/${intent.id}.ts and list it in`,
    ' * BUILT_IN_CONNECTORS there; its configuration variables are in its manifest below.',
    ' */',
    "import { Type, type Static } from 'typebox';",
    `import { ConnectorError, type Connector, type ConnectorContext } from ${lit(names.importPath)};`,
    '',
    `const NAME = ${lit(intent.id)};`,
    `const URL_VARIABLE = ${lit(names.urlVariable)};`,
    `const TOKEN_VARIABLE = ${lit(names.tokenVariable)};`,
    `const AUTH_HEADER = ${lit(intent.authHeader)};`,
    `const AUTH_PREFIX = ${lit(intent.authPrefix)};`,
    '',
    ...schemas.flatMap((s) => [s, '']),
    "/** One call to the API through ctx.http (the SSRF guard); the answer's status becomes an error kind. */",
    'async function call(ctx: ConnectorContext, method: string, path: string, body?: unknown): Promise<unknown> {',
    '  const base = ctx.settings[URL_VARIABLE];',
    '  const token = ctx.settings[TOKEN_VARIABLE];',
    "  if (base === undefined) throw new ConnectorError('not-configured', `the ${NAME} connector is not configured: ${URL_VARIABLE} is not set`);",
    "  if (token === undefined) throw new ConnectorError('not-configured', `the ${NAME} connector is not configured: ${TOKEN_VARIABLE} is not set`);",
    '  const answer = await ctx.http({',
    "    url: `${base.replace(/\\/+$/, '')}${path}`,",
    '    method,',
    '    headers: {',
    '      [AUTH_HEADER]: `${AUTH_PREFIX}${token}`,',
    "      accept: 'application/json',",
    "      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),",
    '    },',
    '    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),',
    '  });',
    "  if (answer.status === 401 || answer.status === 403) throw new ConnectorError('credentials-rejected', `${NAME} answered ${answer.status}: the token was refused`);",
    "  if (answer.status === 429 || answer.status >= 500) throw new ConnectorError('provider-unavailable', `${NAME} answered ${answer.status}`);",
    "  if (answer.status >= 400) throw new ConnectorError('provider-rejected', `${NAME} ${method} ${path}: ${answer.status}`);",
    "  if (answer.body === '') return null;",
    '  try {',
    '    return JSON.parse(answer.body) as unknown;',
    '  } catch {',
    '    return { text: answer.body };',
    '  }',
    '}',
    '',
    ...(hasList
      ? [
          'function query(params: Record<string, string | number | undefined>): string {',
          '  const search = new URLSearchParams();',
          '  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));',
          '  const text = search.toString();',
          "  return text === '' ? '' : `?${text}`;",
          '}',
          '',
        ]
      : []),
    `export const ${names.exportName}: Connector = {`,
    '  manifest: {',
    '    id: NAME,',
    `    title: ${lit(intent.title)},`,
    `    description: ${lit(`Calls the ${intent.title} API (generated from a prompt by rules).`)},`,
    '    variables: [',
    urlVariable,
    `      { name: TOKEN_VARIABLE, description: ${lit(`Credential sent in the ${intent.authHeader} header`)}, secret: true, required: true, kind: 'text' },`,
    '    ],',
    `    verifies: ${lit(`GET ${intent.verifyPath} with the credential (reads; changes nothing)`)},`,
    '    actions: [',
    ...manifestActions,
    '    ],',
    '  },',
    '  async verify(ctx) {',
    `    await call(ctx, 'GET', ${lit(intent.verifyPath)});`,
    `    return { detail: ${lit(`${intent.id} GET ${intent.verifyPath} answered 2xx`)} };`,
    '  },',
    '  actions: {',
    ...runs,
    '  },',
    '};',
    '',
  ].join('\n');
}
