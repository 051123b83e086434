import { Webhook } from 'standardwebhooks';

/** The three headers of a Standard Webhooks delivery (https://www.standardwebhooks.com). */
export interface StandardWebhookHeaders {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
}

/**
 * Signs one delivery: `v1,` + base64 HMAC-SHA256 over `${id}.${timestamp}.${body}` with the secret's
 * base64-decoded bytes (`whsec_` prefix dropped), as the `standardwebhooks` reference library does.
 * Pure: the id and the time are the caller's.
 */
export function signStandardWebhook(secret: string, id: string, timestampSeconds: number, body: string): StandardWebhookHeaders {
  const signature = new Webhook(secret).sign(id, new Date(timestampSeconds * 1000), body);
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': signature };
}
