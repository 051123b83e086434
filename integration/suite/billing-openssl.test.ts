import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../../testing/suite.ts';
import { call, createTenant } from '../../testing/tenancy.ts';
import { machineTimeout } from '../../testing/machine-time.ts';

/**
 * The signing example of docs/BILLING-WEBHOOK.md, run as written (sh and openssl), its header sent
 * with the body to the real suite: a sender with nothing of ours can sign a call the suite accepts.
 */
const DOC = readFileSync(new URL('../../docs/BILLING-WEBHOOK.md', import.meta.url), 'utf8');
const SCRIPT = /<!-- billing-sign:begin -->\n```sh\n([\s\S]*?)```\n<!-- billing-sign:end -->/.exec(DOC)?.[1];
const SECRET = 'whsec_doc_example_5f2e9a';

let t: TestSuite;
beforeAll(async () => {
  t = await startTestSuite({ BILLING_WEBHOOK_SECRET: SECRET });
}, machineTimeout(60_000));
afterAll(() => t?.stop());

/** The documented block computes `$signature`; the call is then made as the doc's curl line makes it. */
async function runDocumented(body: string, secret = SECRET): Promise<unknown> {
  const { stdout: signature } = await promisify(execFile)('sh', ['-c', `${SCRIPT ?? 'exit 1'}printf '%s' "$signature"`], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', BILLING_WEBHOOK_SECRET: secret, body },
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  const res = await fetch(t.url('token', '/billing/webhook'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'billing-signature': signature },
    body,
  });
  return res.json();
}

describe('docs/BILLING-WEBHOOK.md signing example', () => {
  it('is present in the document', () => {
    expect(SCRIPT).toMatch(/openssl dgst -sha256 -hmac/);
  });

  it('signs a call the suite accepts and applies, with openssl alone', async () => {
    const tenant = await createTenant(t, { externalRef: 'cus_openssl' });
    const body = JSON.stringify({ id: `evt_doc_${Date.now()}`, type: 'payment.failed', data: { externalRef: 'cus_openssl' } });
    expect(await runDocumented(body)).toEqual({ received: true, duplicate: false, outcome: 'suspended', tenantId: tenant.id });
    expect((await call(t, `/admin/tenants/${tenant.id}`, { admin: true })).body.tenant.status).toBe('suspended');
    expect(await runDocumented(body)).toEqual({ received: true, duplicate: true });
  });

  it('is refused when signed with another secret', async () => {
    const body = JSON.stringify({ id: `evt_doc_other_${Date.now()}`, type: 'ping' });
    expect(await runDocumented(body, 'whsec_wrong')).toMatchObject({ error: { code: 'INVALID_REQUEST' } });
  });
});
