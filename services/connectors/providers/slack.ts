import { ConnectorError, SLACK, type Connector, type ConnectorContext } from '../../../core/connectors/index.ts';
import { field, joinUrl, jsonOf, requireSetting, said } from './answers.ts';

/** Slack Web API errors that mean the token itself is no good (https://api.slack.com/methods/auth.test). */
const CREDENTIAL_ERRORS = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'no_permission',
  'missing_scope',
  'not_allowed_token_type',
]);

interface SlackPost {
  channel: string;
  text: string;
  thread_ts?: string;
}

async function callSlack(ctx: ConnectorContext, method: string, body: unknown): Promise<unknown> {
  const token = requireSetting(ctx.settings, 'CONNECTOR_SLACK_BOT_TOKEN', 'slack');
  const base = requireSetting(ctx.settings, 'CONNECTOR_SLACK_API_URL', 'slack');
  const answer = await ctx.http({
    url: joinUrl(base, `/${method}`),
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(body),
  });
  if (answer.status === 429) throw new ConnectorError('provider-unavailable', `slack ${method}: rate limited (429); retry later`);
  if (answer.status >= 500) throw new ConnectorError('provider-unavailable', `slack ${method}: status ${answer.status}`);
  const json = jsonOf('slack', answer);
  if (field(json, 'ok') === true) return json;
  const error = said(field(json, 'error')) || `status ${answer.status}`;
  if (CREDENTIAL_ERRORS.has(error)) throw new ConnectorError('credentials-rejected', `slack ${method}: the bot token was rejected (${error})`);
  throw new ConnectorError('provider-rejected', `slack ${method}: ${error}`);
}

export const slackConnector: Connector = {
  manifest: SLACK,
  async verify(ctx) {
    const json = await callSlack(ctx, 'auth.test', {});
    return { detail: `slack auth.test: token of ${said(field(json, 'user')) || 'a bot'} in team ${said(field(json, 'team')) || 'unknown'}` };
  },
  actions: {
    async post_message(ctx: ConnectorContext, input: SlackPost) {
      const json = await callSlack(ctx, 'chat.postMessage', input);
      return { channel: field(json, 'channel') ?? null, ts: field(json, 'ts') ?? null };
    },
  },
};
