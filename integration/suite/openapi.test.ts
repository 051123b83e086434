import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { listRoutes } from '../../edge-http/index.ts';
import { testApp } from '../../testing/edge-app.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * Every listener's `GET /openapi.json`, checked with an OpenAPI 3.1 validator, each of its Schema
 * Objects compiled as JSON Schema 2020-12, and compared with the live route table: a route added
 * later is checked without touching this file.
 */

type Document = {
  openapi: string;
  info: { title: string; version: string };
  servers?: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
};
type Operation = {
  security?: Array<Record<string, string[]>>;
  'x-suite-authority'?: unknown;
  parameters?: Array<{ in: string; name: string; required: boolean; schema: unknown }>;
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
};

const addFormats = addFormatsModule.default;
const DOC_ID = 'https://suite.invalid/openapi.json';

/** `/executions/:id` as OpenAPI writes it: `/executions/{id}`. */
const openapiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/\*$/, '/{path}');

/** JSON pointers of every Schema Object of the document. */
function schemaPointers(doc: Document): string[] {
  const esc = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');
  const pointers = Object.keys(doc.components.schemas).map((name) => `/components/schemas/${esc(name)}`);
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const at = `/paths/${esc(path)}/${method}`;
      op.parameters?.forEach((_p, i) => {
        pointers.push(`${at}/parameters/${i}/schema`);
      });
      for (const type of Object.keys(op.requestBody?.content ?? {})) pointers.push(`${at}/requestBody/content/${esc(type)}/schema`);
      for (const [status, response] of Object.entries(op.responses)) {
        for (const type of Object.keys(response.content ?? {})) pointers.push(`${at}/responses/${status}/content/${esc(type)}/schema`);
      }
    }
  }
  return pointers;
}

function at(doc: Document, pointer: string): unknown {
  const unescapePointer = (s: string) => s.replaceAll('~1', '/').replaceAll('~0', '~');
  return pointer
    .split('/')
    .slice(1)
    .map(unescapePointer)
    .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], doc);
}

/**
 * Each Schema Object compiled by Ajv's JSON Schema 2020-12 dialect in strict mode, so an unknown
 * keyword (a TypeBox internal such as `~kind` leaking out) fails as much as a malformed
 * one. The OpenAPI 3.1 dialect's own keywords are known to it.
 */
function schemaProblems(doc: Document): string[] {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
  addFormats(ajv);
  for (const keyword of ['example', 'discriminator', 'xml', 'externalDocs']) ajv.addKeyword(keyword);
  // Specification extensions (`x-…`) are allowed in a Schema Object (OpenAPI 3.1, 4.8.24); ours:
  // `x-suite-hashed` marks a value hashed on arrival and never stored (docs/ERRORS.md, the text rule).
  for (const keyword of ['x-suite-hashed']) ajv.addKeyword(keyword);
  // The document is added whole so that `#/components/schemas/...` references resolve; Ajv compiles
  // its root on the way, whose fields are the document's, not schema keywords.
  const documentFields = Object.keys(doc).filter((key) => !ajv.getKeyword(key));
  for (const field of documentFields) ajv.addKeyword(field);
  ajv.addSchema(doc as object, DOC_ID);
  const problems: string[] = [];
  for (const pointer of schemaPointers(doc)) {
    // Compiling a referenced part does not check it against the meta-schema: that is asked for here.
    if (!ajv.validateSchema(at(doc, pointer) as object)) problems.push(`${pointer}: ${ajv.errorsText(ajv.errors)}`);
    try {
      ajv.compile({ $ref: `${DOC_ID}#${pointer}` });
    } catch (err) {
      problems.push(`${pointer}: ${(err as Error).message}`);
    }
  }
  return problems;
}

let t: TestSuite;
const docs = new Map<string, Document>();

beforeAll(async () => {
  t = await startTestSuite();
  for (const edge of t.suite.edges) {
    const res = await fetch(t.url(edge.service, '/openapi.json'));
    expect(res.status, `${edge.service} GET /openapi.json`).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    docs.set(edge.service, (await res.json()) as Document);
  }
}, machineTimeout(60_000));
afterAll(() => t?.stop());

describe('GET /openapi.json on every listener', () => {
  it('is a valid OpenAPI 3.1 document for all six listeners', async () => {
    expect([...docs.keys()].sort()).toEqual(['bench', 'connector', 'dashboard', 'scheduler', 'token', 'trust']);
    for (const [service, doc] of docs) {
      const result = await new Validator().validate(structuredClone(doc));
      expect(result.errors, `${service}: ${JSON.stringify(result.errors)}`).toBeUndefined();
      expect(result.valid).toBe(true);
      expect(doc.openapi).toBe('3.1.0');
      expect(doc.info.title).toContain(service);
      expect(doc.info.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    }
  });

  it('has Schema Objects that are all valid JSON Schema 2020-12', () => {
    for (const [service, doc] of docs) {
      const pointers = schemaPointers(doc);
      expect(pointers.length, service).toBeGreaterThan(5);
      expect(schemaProblems(doc), service).toEqual([]);
    }
  });

  it('would catch a document that breaks OpenAPI 3.1 or JSON Schema 2020-12', async () => {
    const broken = structuredClone(docs.get('scheduler')!);
    broken.paths['/health']!.get!.responses = { 200: {} } as Operation['responses'];
    expect((await new Validator().validate(broken as object as Record<string, unknown>)).valid).toBe(false);
    const leaked = structuredClone(docs.get('scheduler')!);
    (leaked.components.schemas.Error as Record<string, unknown>)['~kind'] = 'Object';
    expect(schemaProblems(leaked)).toContainEqual(expect.stringMatching(/^\/components\/schemas\/Error: .*unknown keyword: "~kind"/));
    const malformed = structuredClone(docs.get('scheduler')!);
    (malformed.components.schemas.Error as Record<string, unknown>).required = 'error';
    expect(schemaProblems(malformed)).toContainEqual(expect.stringMatching(/^\/components\/schemas\/Error: data\/required must be array/));
  });

  it("describes exactly the routes of the listener's route table, each with its authority", () => {
    let checked = 0;
    for (const edge of t.suite.edges) {
      const doc = docs.get(edge.service)!;
      const routes = listRoutes(edge.app).filter((r) => r.method !== 'HEAD');
      const schemes = new Set(Object.keys(doc.components.securitySchemes));
      for (const route of routes) {
        const label = `${edge.service} ${route.method} ${route.url}`;
        const op = doc.paths[openapiPath(route.url)]?.[route.method.toLowerCase()];
        expect(op, `${label} is missing from the document`).toBeDefined();
        expect(op!['x-suite-authority'], label).toEqual(route.authority);
        const security = op!.security!;
        if (route.authority.kind === 'public') expect(security, label).toEqual([]);
        else expect(security.length, label).toBeGreaterThan(0);
        for (const requirement of security) for (const name of Object.keys(requirement)) expect(schemes, label).toContain(name);
        if (route.authority.kind === 'scope') expect(security, label).toContainEqual({ bearer: [route.authority.scope] });
        if ('admin' in route.authority && route.authority.admin) expect(security, label).toContainEqual({ adminKey: [] });
        if (route.authority.kind === 'admin') expect(security, label).toEqual([{ adminKey: [] }]);
        if (route.authority.kind === 'tenant') expect(security, label).toEqual([{ tenantKey: [] }]);
        checked++;
      }
      const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
      expect(documented.sort(), edge.service).toEqual(routes.map((r) => `${r.method} ${openapiPath(r.url)}`).sort());
    }
    expect(checked).toBeGreaterThanOrEqual(6 * 5 + 40);
  });

  it('lists /openapi.json itself as a public route in every route table', () => {
    for (const edge of t.suite.edges) {
      expect(listRoutes(edge.app), edge.service).toContainEqual({ method: 'GET', url: '/openapi.json', authority: { kind: 'public' } });
    }
  });

  it('gives the request schemas that validate requests, with defaulted fields optional to the client', () => {
    const token = docs.get('token')!;
    const issue = token.paths['/auth/token']!.post!;
    expect(issue.requestBody!.content['application/json']!.schema).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['sub', 'scope'],
      properties: { scope: { type: 'array', minItems: 1, maxItems: 100 } },
    });
    const audit = token.paths['/audit']!.get!;
    expect(audit.parameters).toContainEqual(expect.objectContaining({ in: 'query', name: 'limit', required: false }));
    expect(audit.parameters).toContainEqual(
      expect.objectContaining({
        in: 'query',
        name: 'result',
        required: false,
        schema: {
          anyOf: [
            { const: 'allow', type: 'string' },
            { const: 'deny', type: 'string' },
          ],
        },
      }),
    );
    const record = token.paths['/executions/{id}']!.get!;
    expect(record.parameters).toContainEqual(expect.objectContaining({ in: 'path', name: 'id', required: true }));
    expect(record.responses['401']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/Error' });
  });
});

/** A TypeBox schema as JSON: what a document made from it must hold. */
const plain = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as unknown;

describe('the document of a listener with routes of its own', () => {
  it('describes body, params, query and headers schemas and response schemas as the route declares them', async () => {
    const Body = Type.Object({ name: Type.String({ minLength: 1 }) }, { additionalProperties: false });
    const Params = Type.Object({ id: Type.String({ pattern: '^[a-z]+$' }) });
    const Query = Type.Object({ verbose: Type.Optional(Type.Boolean()) });
    const Headers = Type.Object({ 'x-trace-tag': Type.String() });
    const Reply = Type.Object({ ok: Type.Literal(true) });
    const app = await testApp(
      (a) => {
        a.post(
          '/things/:id',
          {
            config: { authority: { kind: 'scope', scope: 'thing:write' } },
            schema: { body: Body, params: Params, querystring: Query, headers: Headers, response: { 200: Reply } },
          },
          async () => ({ ok: true as const }),
        );
        a.get('/usage-like', { config: { authority: { kind: 'tenant' } } }, async () => ({}));
      },
      { service: 'trust' },
    );
    try {
      const res = await app.app.inject({ url: '/openapi.json' });
      expect(res.statusCode).toBe(200);
      const doc = res.json() as Document;
      expect((await new Validator().validate(structuredClone(doc))).valid).toBe(true);
      expect(schemaProblems(doc)).toEqual([]);
      const op = doc.paths['/things/{id}']!.post!;
      expect(op.security).toEqual([{ bearer: ['thing:write'] }]);
      expect(op.requestBody!.content['application/json']!.schema).toEqual(plain(Body));
      expect(op.parameters).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ in: 'path', name: 'id', required: true, schema: plain(Params.properties.id) }),
          expect.objectContaining({ in: 'query', name: 'verbose', required: false, schema: plain(Query.properties.verbose) }),
          expect.objectContaining({ in: 'header', name: 'x-trace-tag', required: true, schema: plain(Headers.properties['x-trace-tag']) }),
        ]),
      );
      expect(op.responses['200']!.content!['application/json']!.schema).toEqual(plain(Reply));
      expect(doc.paths['/usage-like']!.get!.security).toEqual([{ tenantKey: [] }]);
      // Documenting the route changed nothing about how it validates: our compiler, no coercion of bodies.
      app.verifier.grant('writer', { sub: 'w', scope: ['thing:write'] });
      const headers = { authorization: 'Bearer writer', 'x-trace-tag': 't' };
      const bad = await app.app.inject({ method: 'POST', url: '/things/abc', headers, payload: { name: 5 } });
      expect({ status: bad.statusCode, body: bad.json() }).toEqual({
        status: 400,
        body: { error: { code: 'INVALID_REQUEST', message: expect.stringMatching(/^body\/name /) } },
      });
      const good = await app.app.inject({ method: 'POST', url: '/things/abc?verbose=true', headers, payload: { name: 'n' } });
      expect({ status: good.statusCode, body: good.json() }).toEqual({ status: 200, body: { ok: true } });
    } finally {
      await app.app.close();
    }
  });
});
