import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseSignatureHeader, signWebhook, verifyWebhookSignature, webhookSecrets } from './webhook-signature.ts';

const SECRET = 'whsec_current_0123456789abcdef';
const OLD = 'whsec_previous_fedcba9876543210';
const NOW = 1_750_000_000;
const BODY = '{"id":"evt_1","type":"payment.failed","data":{"externalRef":"cus_42"}}';

function verify(o: { header?: string | undefined; body?: string | Buffer; secrets?: string[]; now?: number }) {
  return verifyWebhookSignature({
    header: 'header' in o ? o.header : signWebhook(BODY, [SECRET], NOW),
    rawBody: typeof o.body === 'string' ? Buffer.from(o.body) : (o.body ?? Buffer.from(BODY)),
    secrets: o.secrets ?? [SECRET],
    nowSeconds: o.now ?? NOW,
  });
}

describe('billing webhook signature', () => {
  it('accepts the body it was computed over, with HMAC-SHA256 of "<t>.<body>" in hex', () => {
    const expected = createHmac('sha256', SECRET).update(`${NOW}.${BODY}`).digest('hex');
    expect(signWebhook(BODY, [SECRET], NOW)).toBe(`t=${NOW},v1=${expected}`);
    expect(verify({})).toEqual({ ok: true, timestamp: NOW });
  });

  it('refuses the body with any single byte changed', () => {
    const bytes = Buffer.from(BODY);
    for (let i = 0; i < bytes.length; i++) {
      const changed = Buffer.from(bytes);
      changed[i] = changed[i]! ^ 0x01;
      expect(verify({ body: changed }), `byte ${i}`).toEqual({ ok: false, reason: 'no signature matches the body' });
    }
  });

  it('refuses the same JSON with its keys reordered or its spacing changed: the raw bytes are signed', () => {
    expect(verify({ body: '{"type":"payment.failed","id":"evt_1","data":{"externalRef":"cus_42"}}' }).ok).toBe(false);
    expect(verify({ body: JSON.stringify(JSON.parse(BODY), null, 1) }).ok).toBe(false);
    expect(verify({ body: `${BODY}\n` }).ok).toBe(false);
  });

  it('accepts a timestamp up to 300 s away either way and refuses 301 s, stale or in the future', () => {
    expect(verify({ now: NOW + 300 }).ok).toBe(true);
    expect(verify({ now: NOW - 300 }).ok).toBe(true);
    expect(verify({ now: NOW + 301 })).toEqual({ ok: false, reason: 'the signature timestamp is more than 300 s away from now' });
    expect(verify({ now: NOW - 301 }).ok).toBe(false);
  });

  it('refuses a timestamp changed after signing, though the MAC is intact', () => {
    const header = signWebhook(BODY, [SECRET], NOW).replace(`t=${NOW}`, `t=${NOW + 1}`);
    expect(verify({ header })).toEqual({ ok: false, reason: 'no signature matches the body' });
  });

  it('refuses a missing, empty or garbled header, naming the problem', () => {
    expect(verify({ header: undefined })).toEqual({ ok: false, reason: 'the billing-signature header is missing' });
    expect(verify({ header: '' }).ok).toBe(false);
    const sig = signWebhook(BODY, [SECRET], NOW).split(',')[1]!;
    for (const garbled of [
      'garbage',
      `v1=${sig.slice(3)}`,
      `t=${NOW}`,
      `t=${NOW},v1=zz`,
      `t=${NOW},${sig.slice(0, -1)}`,
      `t=abc,${sig}`,
      `t=${NOW},t=${NOW},${sig}`,
      `t=-5,${sig}`,
      `${sig},t`,
      `t=${NOW},v1=${'a'.repeat(63)}`,
      `t=${NOW},${sig}`.padEnd(3000, ','),
    ]) {
      expect(verify({ header: garbled }).ok, garbled.slice(0, 80)).toBe(false);
    }
    expect(verify({ header: 'garbage' })).toEqual({ ok: false, reason: 'the billing-signature header is not of the form t=<unix seconds>,v1=<hex hmac>' });
  });

  it('accepts a header with two signatures while the sender rotates, whichever one we know', () => {
    const both = signWebhook(BODY, [OLD, SECRET], NOW);
    expect(both.split(',')).toHaveLength(3);
    expect(verify({ header: both, secrets: [SECRET] }).ok).toBe(true);
    expect(verify({ header: both, secrets: [OLD] }).ok).toBe(true);
    expect(verify({ header: signWebhook(BODY, [OLD], NOW), secrets: [SECRET] }).ok).toBe(false);
  });

  it('accepts either of two configured secrets while the receiver rotates', () => {
    expect(verify({ header: signWebhook(BODY, [OLD], NOW), secrets: [SECRET, OLD] }).ok).toBe(true);
    expect(verify({ header: signWebhook(BODY, ['whsec_someone_else_entirely'], NOW), secrets: [SECRET, OLD] }).ok).toBe(false);
  });

  it('refuses every call when no secret is configured, even one signed with an empty secret', () => {
    expect(verify({ secrets: [] })).toEqual({ ok: false, reason: 'no billing webhook secret is configured; every webhook call is refused' });
    expect(verify({ header: signWebhook(BODY, [''], NOW), secrets: webhookSecrets(undefined) }).ok).toBe(false);
  });

  it('ignores signature schemes it does not know, beside a v1 it can check', () => {
    const header = `${signWebhook(BODY, [SECRET], NOW)},v0=${'0'.repeat(64)}`;
    expect(verify({ header }).ok).toBe(true);
    expect(parseSignatureHeader(` t = ${NOW} , v1 = ${'a'.repeat(64)} `)).toEqual({ timestamp: NOW, signatures: [Buffer.alloc(32, 0xaa)] });
  });

  it('reads several configured secrets separated by commas or spaces', () => {
    expect(webhookSecrets('new_secret, old_secret')).toEqual(['new_secret', 'old_secret']);
    expect(webhookSecrets(' one ')).toEqual(['one']);
    expect(webhookSecrets(undefined)).toEqual([]);
    expect(webhookSecrets('')).toEqual([]);
  });
});
