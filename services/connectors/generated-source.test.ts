import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateConnector, type Connector, type ConnectorContext } from '../../core/connectors/index.ts';
import { createOutboundGuard, guardedRequest, outboundPolicy } from '../../actors/outbound/index.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * The generator's TypeScript, as a developer would use it: written where its manifest says it goes
 * (…/connectors/providers/<id>.ts, here under a throw-away folder of the project), compiled by tsc
 * under the project's tsconfig, then imported and run against a local API through the SSRF guard.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TMP = join(ROOT, `.tmp-gen-${randomBytes(4).toString('hex')}`);
const PROVIDERS = join(TMP, 'connectors', 'providers');

const PROMPTS = [
  'Create tickets with a title and a description, get a ticket, list tickets, close tickets and delete tickets in the Acme API using an API key',
  'list and search pages in notion',
  'send messages to discord',
  'update customers with email, name and phone and fetch invoices for Stripe',
  'a connector for the 9lives service that posts events',
  'Talk to https://api.weather.example.net/v3 to read forecasts',
  'PagerDuty: open incidents with title and urgency, resolve incidents',
  'nothing about verbs at all, just Zebra',
];

let api: Server;
let apiUrl = '';
const seen: { method: string; url: string; headers: Record<string, unknown>; body: string }[] = [];

beforeAll(async () => {
  await mkdir(PROVIDERS, { recursive: true });
  api = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8');
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: { ...req.headers }, body });
      res
        .writeHead(req.url?.startsWith('/tickets/missing') ? 404 : 200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ ok: true, echo: body === '' ? null : JSON.parse(body) }));
    });
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await rm(TMP, { recursive: true, force: true });
  await new Promise((resolve) => api.close(resolve));
});

describe('the generated TypeScript', () => {
  it("compiles under the project's tsconfig for prompts of every shape, as the built-ins' Connector", { timeout: machineTimeout(120_000) }, async () => {
    const files: string[] = [];
    for (const prompt of PROMPTS) {
      const r = generateConnector(prompt);
      if (!r.ok) throw new Error(`${prompt}: ${r.message}`);
      const file = join(PROVIDERS, `${r.value.spec.id as string}.ts`);
      await writeFile(file, r.value.typescript);
      files.push(file);
    }
    await writeFile(join(TMP, 'tsconfig.json'), JSON.stringify({ extends: '../tsconfig.json', include: ['connectors/**/*.ts'], exclude: [] }));
    const tsc = join(ROOT, 'node_modules', '.bin', 'tsc');
    const run = await promisify(execFile)(tsc, ['--noEmit', '-p', join(TMP, 'tsconfig.json')], { cwd: ROOT }).then(
      () => ({ ok: true, out: '' }),
      (err: { stdout?: string }) => ({ ok: false, out: err.stdout ?? String(err) }),
    );
    expect(run.out).toBe('');
    expect(run.ok).toBe(true);
    expect(files).toHaveLength(PROMPTS.length);
  });

  it('is caught by the same check when it does not compile', { timeout: machineTimeout(120_000) }, async () => {
    const bad = `${TMP}-broken`;
    try {
      await mkdir(join(bad, 'connectors', 'providers'), { recursive: true });
      const r = generateConnector(PROMPTS[0]!);
      if (!r.ok) throw new Error(r.message);
      await writeFile(join(bad, 'connectors', 'providers', 'acme.ts'), r.value.typescript.replace('actions: {', 'actions: { broken: 42,'));
      await writeFile(join(bad, 'tsconfig.json'), JSON.stringify({ extends: '../tsconfig.json', include: ['connectors/**/*.ts'], exclude: [] }));
      const tsc = join(ROOT, 'node_modules', '.bin', 'tsc');
      const out = await promisify(execFile)(tsc, ['--noEmit', '-p', join(bad, 'tsconfig.json')], { cwd: ROOT }).then(
        () => '',
        (err: { stdout?: string }) => err.stdout ?? String(err),
      );
      // Only the injected line fails: the import of core/connectors resolves from there as from TMP.
      expect(out).toMatch(/acme\.ts\(\d+,\d+\): error TS2322/);
      expect(out.trim().split('\n')).toHaveLength(1);
    } finally {
      await rm(bad, { recursive: true, force: true });
    }
  });

  it('runs: its actions call the API through the guard with the credential header, and map a 404', async () => {
    const r = generateConnector(PROMPTS[0]!);
    if (!r.ok) throw new Error(r.message);
    const file = join(PROVIDERS, 'acme-run.ts');
    await writeFile(file, r.value.typescript);
    const mod = (await import(pathToFileURL(file).href)) as { acmeConnector: Connector };
    const connector = mod.acmeConnector;
    const guard = createOutboundGuard({ policy: outboundPolicy({ allowList: undefined, distributed: false, production: false }) });
    const ctx: ConnectorContext = {
      settings: { CONNECTOR_ACME_API_URL: apiUrl, CONNECTOR_ACME_TOKEN: 'k-123' },
      async http(call) {
        const a = await guardedRequest(guard, {
          url: call.url,
          method: call.method ?? 'GET',
          timeoutMs: 5000,
          ...(call.headers ? { headers: call.headers } : {}),
          ...(call.body !== undefined ? { body: call.body } : {}),
        });
        return { status: a.status, body: a.body.toString('utf8'), truncated: a.truncated };
      },
    };
    try {
      expect(connector.manifest.actions.map((a) => a.name)).toEqual(['create_ticket', 'get_ticket', 'list_tickets', 'close_ticket', 'delete_ticket']);
      const created = await connector.actions.create_ticket!(ctx, { title: 'T', description: 'D' } as never);
      expect(created).toEqual({ ok: true, echo: { title: 'T', description: 'D' } });
      expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/tickets' });
      expect(seen.at(-1)!.headers['x-api-key']).toBe('k-123');
      await connector.actions.list_tickets!(ctx, { query: 'open bugs', limit: 5 } as never);
      expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/tickets?q=open+bugs&limit=5' });
      await connector.actions.close_ticket!(ctx, { id: 'a/b', fields: { state: 'closed' } } as never);
      expect(seen.at(-1)).toMatchObject({ method: 'PATCH', url: '/tickets/a%2Fb', body: '{"state":"closed"}' });
      await expect(connector.actions.get_ticket!(ctx, { id: 'missing' } as never)).rejects.toMatchObject({ kind: 'provider-rejected' });
    } finally {
      await guard.close();
    }
  });
});
