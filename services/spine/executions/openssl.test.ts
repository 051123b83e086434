import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageKinds, type TestStorage } from '../../../testing/storage.ts';
import { executionsPageAfter } from '../../../storage/index.ts';
import { executionExportLine, type ExecutionRecord } from '../../../core/chain/index.ts';
import { runDocumentedScript } from '../../../testing/trace-format.ts';
import { executionBody, startExecutionHarness, type ExecutionHarness } from '../../../testing/executions.ts';
import { machineTimeout } from '../../../testing/machine-time.ts';

/**
 * Records made just now through POST /executions, read back through the API and the database,
 * verified with the documented sh/sha256sum/openssl steps of docs/TRACE-FORMAT.md and no code of ours.
 */
describe.each(storageKinds())('fresh records verified with openssl alone on $kind', ({ open }) => {
  let db: TestStorage;
  let h: ExecutionHarness;
  const made: ExecutionRecord[] = [];
  beforeAll(async () => {
    db = await open();
    const key = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    h = await startExecutionHarness({ storage: db.storage, tracePrivateKeyPem: key });
    const bodies = [
      executionBody(),
      executionBody({ subject: 'agent-ünïcødé-😀', cost: { amount: 7, currency: 'JPY', source: 'meter', unit: 'calls', quantity: 0.1 } }),
      executionBody({ output: undefined, governance: { decision: 'PERMITTED', evidence: ['line one\nline "two"'], evaluatedBy: 'opa' } }),
    ];
    for (const b of bodies) {
      const res = await h.record(b);
      expect(res.status).toBe(201);
      made.push(res.body);
    }
  }, machineTimeout(60_000));
  afterAll(async () => {
    await h?.stop();
    await db?.dispose();
  });

  const publicKey = async (keyId?: string) =>
    (await h.app.inject({ method: 'GET', url: `/executions/public-key${keyId ? `?keyId=${keyId}` : ''}` })).json() as { keyId: string; publicKey: string };

  it('verifies each record, as GET /executions/{id} answers it, with sha256sum and openssl pkeyutl', async () => {
    const token = await h.token(['execution:read']);
    const key = await publicKey();
    for (const r of made) {
      const read = (await h.app.inject({ method: 'GET', url: `/executions/${r.id}`, headers: { authorization: `Bearer ${token}` } })).json() as ExecutionRecord;
      const out = runDocumentedScript('verify-record', { 'record.line': `${executionExportLine(read)}\n`, 'pub.pem': key.publicKey });
      expect(out, out.stderr).toMatchObject({ status: 0 });
      expect(out.stdout).toBe(`canonical.json: OK\nSignature Verified Successfully\n${read.keyId.slice('ed25519-'.length)}\n`);
    }
  });

  it('verifies the exported chain with the documented script, up to the head the API reports', async () => {
    const records = await executionsPageAfter(db.storage.pool, 0, 1000);
    const keyIds = [...new Set(records.map((r) => r.keyId))];
    const keys = Object.fromEntries(await Promise.all(keyIds.map(async (id) => [`keys/${id}.pem`, (await publicKey(id)).publicKey])));
    const out = runDocumentedScript('verify-chain', { 'chain.trace': records.map((r) => `${executionExportLine(r)}\n`).join(''), ...keys });
    const head = (await h.app.inject({ method: 'POST', url: '/executions/verify', payload: {} })).json() as { headHash: string; checked: number };
    expect(out, out.stderr).toMatchObject({ status: 0, stdout: `chain verified: ${head.checked} records, head ${head.headHash}\n` });
  });
});
