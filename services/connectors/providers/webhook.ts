import { randomUUID } from 'node:crypto';
import { ConnectorError, WEBHOOK, signStandardWebhook, type Connector, type ConnectorContext } from '../../../core/connectors/index.ts';
import { requireSetting } from './answers.ts';

interface WebhookEvent {
  type: string;
  data: Record<string, unknown>;
}

export const webhookConnector: Connector = {
  manifest: WEBHOOK,
  async verify(ctx) {
    requireSetting(ctx.settings, 'CONNECTOR_WEBHOOK_URL', 'webhook');
    requireSetting(ctx.settings, 'CONNECTOR_WEBHOOK_SECRET', 'webhook');
    const health = ctx.settings.CONNECTOR_WEBHOOK_HEALTH_URL;
    if (health === undefined)
      throw new ConnectorError('not-configured', 'the webhook connector has no health URL to check: CONNECTOR_WEBHOOK_HEALTH_URL is not set');
    const answer = await ctx.http({ url: health, method: 'GET' });
    if (answer.status >= 200 && answer.status < 300) return { detail: `webhook health URL answered ${answer.status}` };
    if (answer.status === 401 || answer.status === 403) throw new ConnectorError('credentials-rejected', `webhook health URL answered ${answer.status}`);
    throw new ConnectorError('provider-unavailable', `webhook health URL answered ${answer.status}`);
  },
  actions: {
    async send(ctx: ConnectorContext, input: WebhookEvent) {
      const url = requireSetting(ctx.settings, 'CONNECTOR_WEBHOOK_URL', 'webhook');
      const secret = requireSetting(ctx.settings, 'CONNECTOR_WEBHOOK_SECRET', 'webhook');
      const now = Math.floor(Date.now() / 1000);
      const id = `msg_${randomUUID().replaceAll('-', '')}`;
      const body = JSON.stringify({ type: input.type, timestamp: new Date(now * 1000).toISOString(), data: input.data });
      const answer = await ctx.http({
        url,
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', ...signStandardWebhook(secret, id, now, body) },
      });
      if (answer.status >= 200 && answer.status < 300) return { delivered: true, webhookId: id, status: answer.status };
      if (answer.status === 401 || answer.status === 403)
        throw new ConnectorError('credentials-rejected', `webhook receiver refused the signature (${answer.status}); is CONNECTOR_WEBHOOK_SECRET its secret?`);
      if (answer.status >= 500 || answer.status === 429) throw new ConnectorError('provider-unavailable', `webhook receiver answered ${answer.status}`);
      throw new ConnectorError('provider-rejected', `webhook receiver answered ${answer.status}`);
    },
  },
};
