import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTraceSigner, executionExportLine, GENESIS_HASH, type ExecutionRecord, type KeyLookup } from '../../../core/chain/index.ts';
import { signedChain, verifyExportText } from '../../../testing/trace-format.ts';
import { executionBody, harnessTenant, startExecutionHarness, type ExecutionHarness } from '../../../testing/executions.ts';
import { ensureChainHead, executionsPageAfter, insertExecutions, registerTraceKey } from '../../../storage/index.ts';
import { storageKinds, type TestStorage } from '../../../testing/storage.ts';
import type { Storage } from '../../../storage/index.ts';
import { machineTimeout } from '../../../testing/machine-time.ts';

const pem = () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/** A chain of `n` records written straight to storage (HTTP would take long), signed with `key`. */
async function fill(storage: Storage, key: string, n: number, tenantOf?: (seq: number) => string | null): Promise<ExecutionRecord[]> {
  const signer = createTraceSigner(key);
  const chain = signedChain(signer, n, tenantOf);
  const db = storage.pool;
  await registerTraceKey(db, { keyId: signer.keyId, publicKeyPem: signer.publicKeyPem, ephemeral: false, holder: 'test-fill' });
  await ensureChainHead(db, 'executions', GENESIS_HASH);
  for (let i = 0; i < n; i += 2000)
    await insertExecutions(
      db,
      chain.slice(i, i + 2000).map((r) => ({ ...r, idempotencyKey: null })),
    );
  await db.query(sql.unsafe`update chain_heads set seq = ${n}, hash = ${chain[n - 1]!.hash} where chain = 'executions'`);
  return chain;
}

describe.each(storageKinds())('GET /executions/export on $kind', ({ open }) => {
  const key = pem();
  const publicKey = createPublicKey(createTraceSigner(key).publicKeyPem);
  const keys: KeyLookup = () => publicKey;
  /** Records 1-1205 straight to storage (every third of tenant ten_fill), the rest through the API. */
  const FILLED = 1205;
  let db: TestStorage;
  let h: ExecutionHarness;
  let filled: ExecutionRecord[];
  let reader: string;
  beforeAll(async () => {
    db = await open();
    filled = await fill(db.storage, key, FILLED, (seq) => (seq % 3 === 0 ? 'ten_fill' : null));
    h = await startExecutionHarness({ storage: db.storage, tracePrivateKeyPem: key });
    for (let i = 0; i < 3; i++) expect((await h.record(executionBody({ subject: `agent-${i}` }))).status).toBe(201);
    reader = await h.token(['execution:read']);
  }, machineTimeout(60_000));
  afterAll(async () => {
    await h?.stop();
    await db?.dispose();
  });

  const get = (url: string, token = reader) => h.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
  const stored = async () => executionsPageAfter(db.storage.pool, 0, 10_000);

  it('streams the whole chain as the documented export file, which verifies with the published key', async () => {
    const res = await get('/executions/export');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="executions-1-${FILLED + 3}.trace"`);
    const all = await stored();
    expect(res.body).toBe(
      [
        `# {"export":"executions","format":1,"from":1,"to":${FILLED + 3},"tenantId":null}`,
        ...all.map(executionExportLine),
        `# {"end":"executions","records":${FILLED + 3}}`,
        '',
      ].join('\n'),
    );
    expect(verifyExportText(res.body, keys)).toMatchObject({ valid: true, records: FILLED + 3, lastHash: all.at(-1)!.hash, notes: [] });
  });

  it('exports a range, stopped at the head when `to` lies beyond it; nothing when `from` does', async () => {
    const range = await get('/executions/export?from=499&to=1001');
    expect(range.body.split('\n')[0]).toBe('# {"export":"executions","format":1,"from":499,"to":1001,"tenantId":null}');
    expect(verifyExportText(range.body, keys)).toMatchObject({ valid: true, records: 503, firstSeq: 499, lastSeq: 1001, lastHash: filled[1000]!.hash });
    const beyond = await get(`/executions/export?from=${FILLED + 2}&to=999999`);
    expect(beyond.body.split('\n')[0]).toContain(`"from":${FILLED + 2},"to":${FILLED + 3}`);
    expect(verifyExportText(beyond.body, keys)).toMatchObject({ valid: true, records: 2 });
    const none = await get('/executions/export?from=999999');
    expect(none.statusCode).toBe(200);
    expect(none.body).toBe(`# {"export":"executions","format":1,"from":999999,"to":${FILLED + 3},"tenantId":null}\n# {"end":"executions","records":0}\n`);
    expect(verifyExportText(none.body, keys)).toMatchObject({ valid: true, records: 0 });
  });

  it.each([
    ['from after to', '?from=5&to=4', 'from must not be greater than to'],
    ['a sequence number below 1', '?from=0', 'querystring/from must be >= 1'],
    ['a sequence number that is not a number', '?to=ten', 'querystring/to must be a whole number'],
    ['a sequence number spelled with an exponent', '?to=1e2', 'querystring/to must be a whole number in plain decimal digits'],
    ['an unknown parameter', '?limit=5', 'querystring has a field it does not accept (limit)'],
  ])('answers 400 INVALID_REQUEST to %s, before any byte of a file', async (_name, query, message) => {
    const res = await get(`/executions/export${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ error: { code: 'INVALID_REQUEST', message: expect.stringContaining(message) } });
  });

  it('needs execution:read', async () => {
    expect((await h.app.inject({ method: 'GET', url: '/executions/export' })).statusCode).toBe(401);
    expect((await get('/executions/export', await h.token(['execution:record']))).json()).toMatchObject({ error: { code: 'CAPABILITY_INSUFFICIENT' } });
  });

  it("gives a tenant's token only its tenant's records, as its list reads them, and says so in the file", async () => {
    const filledTenant = await get('/executions/export', await h.token(['execution:read'], { ten: 'ten_fill' }));
    const r = verifyExportText(filledTenant.body, keys);
    expect(r).toMatchObject({ valid: true, records: Math.floor(FILLED / 3), firstSeq: 3, range: { tenantId: 'ten_fill' } });
    expect(r.notes).toEqual([expect.stringContaining('belongs to another tenant')]);

    const t = await harnessTenant(h);
    const mine = [await t.record({ subject: 'a' }), await t.record({ subject: 'b' })];
    const text = (await h.app.inject({ method: 'GET', url: '/executions/export', headers: { authorization: `Bearer ${t.reader}` } })).body;
    const listed = (await t.get('/executions')).body.records as ExecutionRecord[];
    expect(listed.map((x) => x.id).reverse()).toEqual(mine.map((x) => x.id));
    expect(text.split('\n').slice(1, -2)).toEqual(listed.reverse().map(executionExportLine));
    expect(verifyExportText(text, keys)).toMatchObject({ valid: true, records: 2, range: { from: 1, tenantId: t.ten } });
  });
});

describe('GET /executions/export when the reader goes away while it streams', () => {
  let db: TestStorage;
  let h: ExecutionHarness;
  const key = pem();
  const publicKey = createPublicKey(createTraceSigner(key).publicKeyPem);
  beforeAll(async () => {
    db = await storageKinds()[0]!.open();
    // More than the sockets between server and client buffer (a few MB on loopback): the export
    // must still be streaming when the reader stops.
    await fill(db.storage, key, 20_000);
    h = await startExecutionHarness({ storage: db.storage, tracePrivateKeyPem: key });
  }, machineTimeout(120_000));
  afterAll(async () => {
    await h?.stop();
    await db?.dispose();
  });

  let base: string;
  /** An export begun over a real socket, its first bytes read, then `meanwhile`, then the rest read. */
  async function exportWith(meanwhile: () => Promise<void>): Promise<{ text: string; failure: unknown }> {
    base ??= await h.app.listen({ port: 0, host: '127.0.0.1' });
    const res = await fetch(`${base}/executions/export`, { headers: { authorization: `Bearer ${await h.token(['execution:read'])}` } });
    expect(res.status).toBe(200);
    const body = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await body.read()).value, { stream: true });
    await meanwhile();
    let failure: unknown;
    try {
      for (;;) {
        const { done, value } = await body.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
    } catch (err) {
      failure = err;
    }
    return { text, failure };
  }

  it('aborts the connection, and the bytes received end without the end line', { timeout: machineTimeout(60_000) }, async () => {
    const { text, failure } = await exportWith(() => h.actors.reader!.stop());
    expect(failure, 'the client must see the transfer fail').toBeInstanceOf(Error);
    expect(text.startsWith('# {"export":"executions"')).toBe(true);
    expect(text).not.toContain('# {"end"');
    expect(text.length).toBeLessThan(20_000 * 800);
    const lastLine = text.slice(0, text.lastIndexOf('\n'));
    const r = verifyExportText(`${lastLine}\n`, () => publicKey);
    expect(r).toMatchObject({ valid: false, brokenAt: r.records + 1, reason: expect.stringMatching(/^no end line: the export is incomplete/) });
    expect(r.records).toBeGreaterThan(0);
  });

  it('aborts exports under way when the edge closes, instead of waiting for their readers', { timeout: machineTimeout(60_000) }, async () => {
    await h.restartWriter(key);
    let closed = 0;
    const { text, failure } = await exportWith(async () => {
      const s = performance.now();
      await h.app.close();
      closed = performance.now() - s;
    });
    expect(failure).toBeInstanceOf(Error);
    expect(text).not.toContain('# {"end"');
    expect(closed).toBeLessThan(2_000);
  });
});
