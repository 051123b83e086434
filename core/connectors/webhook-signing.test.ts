import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { signStandardWebhook } from './webhook-signing.ts';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('signStandardWebhook', () => {
  it('signs v1,<base64 HMAC-SHA256 of id.timestamp.body> under the base64-decoded secret', () => {
    const body = '{"type":"invoice.paid","data":{}}';
    const headers = signStandardWebhook(SECRET, 'msg_1', 1_700_000_000, body);
    const expected = createHmac('sha256', Buffer.from(SECRET.slice(6), 'base64'))
      .update(`msg_1.1700000000.${body}`)
      .digest('base64');
    expect(headers).toEqual({ 'webhook-id': 'msg_1', 'webhook-timestamp': '1700000000', 'webhook-signature': `v1,${expected}` });
  });

  it('is accepted by the reference verifier now, and refused once the body changes', () => {
    const now = Math.floor(Date.now() / 1000);
    const headers = signStandardWebhook(SECRET, 'msg_2', now, '{"a":1}');
    const verifier = new Webhook(SECRET);
    expect(verifier.verify('{"a":1}', { ...headers })).toEqual({ a: 1 });
    expect(() => verifier.verify('{"a":2}', { ...headers })).toThrow();
  });
});
