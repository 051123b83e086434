import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRoutes, routeSchemas } from '../../edge-http/index.ts';
import { clientProject, type ClientProject } from '../../testing/openapi-client.ts';
import { CLIENT_SOURCE, WRONG_SOURCE } from '../../testing/openapi-client-source.ts';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * The contract as a platform team meets it (issue 23): the six documents pass redocly's
 * recommended ruleset, every operation of every listener (walked from the live route table) says
 * what each of its answers holds, and a client generated from the documents reads the answers'
 * fields with no cast, against the running suite.
 */

type Response = { description?: string; content?: Record<string, { schema?: unknown }> };
type Operation = { operationId?: string; summary?: string; tags?: string[]; responses: Record<string, Response> };
type Document = { info: { version: string }; tags?: Array<{ name: string; description?: string }>; paths: Record<string, Record<string, Operation>> };

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REDOCLY = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
const run = promisify(execFile);
const openapiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/\*$/, '/{path}');

/**
 * Operations with no 2xx, on purpose: they exist to refuse or to upgrade. `GET`/`DELETE /mcp`
 * answer 405 (the MCP transport's stateless server), `GET /live` switches to a WebSocket (101),
 * and `POST /connectors/{id}/actions/{action}` answers any action that is not built in with a 404
 * naming where the actions are listed.
 */
const NO_SUCCESS = new Set(['openMcpStream', 'endMcpSession', 'openLiveSocket', 'runUnknownConnectorAction']);

/**
 * The warnings of the recommended ruleset left, each for a reason (docs/ROUTES.md, "OpenAPI documents"):
 * no license is declared (the project publishes none); the probes (`/health`, `/ready`, `/metrics`)
 * have no client error to answer (no input, no credential, no rate limit); the operations above have
 * no 2xx.
 */
const ACCEPTED_WARNINGS: Record<string, (pointer: string) => boolean> = {
  'info-license': (pointer) => pointer === '#/info',
  'operation-4xx-response': (pointer) => /^#\/paths\/~1(health|ready|metrics)\/get\/responses$/.test(pointer),
  'operation-2xx-response': (pointer) =>
    /^#\/paths\/(~1mcp\/(get|delete)|~1live\/get|~1connectors~1\{id\}~1actions~1\{action\}\/post)\/responses$/.test(pointer),
};

let t: TestSuite;
let folder: string;
const docs = new Map<string, Document>();

beforeAll(async () => {
  t = await startTestSuite();
  folder = await mkdtemp(join(tmpdir(), 'suite-openapi-'));
  for (const edge of t.suite.edges) {
    const doc = (await (await fetch(t.url(edge.service, '/openapi.json'))).json()) as Document;
    docs.set(edge.service, doc);
    await writeFile(join(folder, `${edge.service}.json`), JSON.stringify(doc, null, 2));
  }
}, machineTimeout(120_000));
afterAll(async () => {
  await t?.stop();
  if (folder !== undefined) await rm(folder, { recursive: true, force: true });
});

interface Problem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: Array<{ pointer: string }>;
}

async function lint(service: string): Promise<{ totals: { errors: number; warnings: number }; problems: Problem[] }> {
  const args = [REDOCLY, 'lint', '--extends', 'recommended', '--format', 'json', '--max-problems', '10000', join(folder, `${service}.json`)];
  // Exit status 1 when there are errors: the report on stdout says which.
  const out = await run(process.execPath, args, { cwd: folder, maxBuffer: 32 * 1024 * 1024 }).catch((err: { stdout?: string }) => ({
    stdout: err.stdout ?? '',
  }));
  return JSON.parse(out.stdout) as { totals: { errors: number; warnings: number }; problems: Problem[] };
}

describe('the six OpenAPI documents', () => {
  it("pass redocly's recommended ruleset with 0 errors, and only the warnings the suite explains", { timeout: machineTimeout(120_000) }, async () => {
    expect([...docs.keys()].sort()).toEqual(['bench', 'connector', 'dashboard', 'scheduler', 'token', 'trust']);
    for (const service of docs.keys()) {
      const report = await lint(service);
      const errors = report.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
      expect(errors, service).toEqual([]);
      expect(report.totals.errors, service).toBe(0);
      const unexplained = report.problems.filter((p) => !ACCEPTED_WARNINGS[p.ruleId]?.(p.location[0]?.pointer ?? ''));
      expect(
        unexplained.map((p) => `${p.ruleId} ${p.location[0]?.pointer}`),
        service,
      ).toEqual([]);
    }
  });

  it('describe the interface version 1.1.0, and every tag they use with its words', () => {
    for (const [service, doc] of docs) {
      expect(doc.info.version, service).toBe('1.1.0');
      const described = new Map((doc.tags ?? []).map((tag) => [tag.name, tag.description]));
      for (const item of Object.values(doc.paths)) {
        for (const op of Object.values(item)) for (const tag of op.tags ?? []) expect(described.get(tag), `${service} tag ${tag}`).toMatch(/\w/);
      }
    }
  });
});

describe('every operation of every listener, walked from the live route table', () => {
  it('has a unique camelCase operationId, a summary, one tag, a 2xx answer, and a response schema for every status it documents', () => {
    let operations = 0;
    for (const edge of t.suite.edges) {
      const doc = docs.get(edge.service)!;
      const ids = new Set<string>();
      for (const route of listRoutes(edge.app).filter((r) => r.method !== 'HEAD')) {
        const label = `${edge.service} ${route.method} ${route.url}`;
        const op = doc.paths[openapiPath(route.url)]?.[route.method.toLowerCase()];
        expect(op, label).toBeDefined();
        expect(op!.operationId, label).toMatch(/^[a-z][A-Za-z0-9]*$/);
        expect(ids.has(op!.operationId!), `${label}: operationId ${op!.operationId} is used twice`).toBe(false);
        ids.add(op!.operationId!);
        expect(op!.summary, label).toMatch(/\w/);
        expect(op!.tags, label).toHaveLength(1);
        const statuses = Object.keys(op!.responses);
        if (!NO_SUCCESS.has(op!.operationId!))
          expect(
            statuses.some((s) => s.startsWith('2')),
            `${label} documents no 2xx`,
          ).toBe(true);
        // The route's own declaration: every status it serializes with a schema is documented.
        const declared = Object.keys((routeSchemas(route).response ?? {}) as object).map((s) => s.toUpperCase());
        for (const status of declared) expect(statuses, `${label} declares ${status}`).toContain(status);
        for (const status of statuses) {
          const response = op!.responses[status]!;
          expect(response.description, `${label} ${status}`).toMatch(/\w/);
          // No body: a protocol switch (101), or an answer the route declares empty (`type: 'null'`).
          const declaredEmpty = (routeSchemas(route).response as Record<string, { type?: string }> | undefined)?.[status]?.type === 'null';
          if (status === '101' || declaredEmpty) continue;
          const media = Object.values(response.content ?? {});
          expect(media.length, `${label} ${status} has no content`).toBeGreaterThan(0);
          for (const m of media) expect(m.schema, `${label} ${status}`).toBeDefined();
        }
        if (route.authority.kind !== 'public') for (const s of ['401', '403', '503']) expect(statuses, `${label} is guarded`).toContain(s);
        operations++;
      }
    }
    expect(operations).toBeGreaterThan(150);
  });

  it('answer with the status codes the handlers use: 201 for records made, 202 for runs accepted', () => {
    const token = docs.get('token')!.paths;
    expect(Object.keys(token['/executions']!.post!.responses)).toEqual(expect.arrayContaining(['200', '201', '409']));
    expect(Object.keys(token['/admin/tenants']!.post!.responses)).toContain('201');
    expect(Object.keys(token['/auth/token/validate']!.post!.responses)).toEqual(expect.arrayContaining(['200', '400', '402']));
    expect(Object.keys(docs.get('bench')!.paths['/run']!.post!.responses)).toContain('202');
    expect(Object.keys(docs.get('scheduler')!.paths['/queue']!.post!.responses)).toEqual(expect.arrayContaining(['201', '429']));
    expect(Object.keys(docs.get('trust')!.paths['/events']!.post!.responses)).toContain('201');
    expect(Object.keys(docs.get('token')!.paths['/executions/export']!.get!.responses['200']!.content!)).toEqual(['text/plain']);
  });
});

describe('a client generated with openapi-typescript and openapi-fetch', () => {
  let project: ClientProject | undefined;
  afterAll(() => project?.remove());

  it('type-checks code that reads the answers of every listener with no cast, and refuses a field no answer has', {
    timeout: machineTimeout(240_000),
  }, async () => {
    project = await clientProject(docs, { 'client.ts': CLIENT_SOURCE, 'wrong.ts': WRONG_SOURCE });
    const diagnostics = await project.typecheck();
    expect(diagnostics.filter((d) => !d.startsWith('wrong.ts'))).toEqual([]);
    expect(diagnostics).toEqual([expect.stringMatching(/^wrong\.ts\(\d+,\d+\): error TS2339: Property 'notAFieldOfARecord' does not exist/)]);
  });

  it('mints, records, reads back and validates against the running suite, reading every field it was typed for', {
    timeout: machineTimeout(120_000),
  }, async () => {
    project ??= await clientProject(docs, { 'client.ts': CLIENT_SOURCE });
    const { exercise } = (await import(join(project.dir, 'client.ts'))) as {
      exercise: (urls: Record<string, string>, adminKey: string) => Promise<Record<string, unknown>>;
    };
    const urls = Object.fromEntries(t.suite.edges.map((e) => [e.service, t.url(e.service)]));
    const got = await exercise(urls, t.adminKey);
    const hash = expect.stringMatching(/^[0-9a-f]{64}$/);
    expect(got).toMatchObject({
      recorded: {
        status: 201,
        id: expect.stringMatching(/^exec_[0-9a-f]{32}$/),
        seq: expect.any(Number),
        hash,
        keyId: expect.stringMatching(/^ed25519-/),
        jti: expect.any(String),
      },
      replayedStatus: 200,
      readBack: { hash: (got.recorded as { hash: string }).hash, prevHash: expect.any(String), signature: expect.any(String) },
      missing: { status: 404, code: 'NOT_FOUND' },
      validated: { valid: true, sub: 'client-agent', scopeSatisfied: true },
      refused: { status: 400, valid: false, error: 'CAPABILITY_INSUFFICIENT', scopeSatisfied: false },
      schedules: { total: 0 },
      providers: ['ollama', 'openai', 'anthropic', 'http'],
      promises: expect.any(Number),
      health: { status: 'ok', service: 'dashboard', uptime: expect.any(Number) },
    });
    expect(got.replayedHash).toBe((got.recorded as { hash: string }).hash);
    expect(got.listed).toContain((got.recorded as { hash: string }).hash);
    expect((got.connectors as unknown[]).length).toBeGreaterThan(0);
  });
});
