import { HTTP, type Connector, type ConnectorContext } from '../../../core/connectors/index.ts';

interface HttpRequestInput {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * A raw transport: whatever status the target answers is the output, for the agent to judge; only
 * a call that gets no answer (refused by the outbound policy, unreachable, timed out) is an error.
 */
export const httpConnector: Connector = {
  manifest: HTTP,
  async verify() {
    return { detail: 'nothing to check: the http connector holds no credentials' };
  },
  actions: {
    async request(ctx: ConnectorContext, input: HttpRequestInput) {
      const timeoutMs = Number(ctx.settings.CONNECTOR_HTTP_TIMEOUT_MS ?? 10_000);
      const answer = await ctx.http({
        url: input.url,
        method: input.method,
        timeoutMs,
        maxBodyBytes: 64 * 1024,
        ...(input.headers !== undefined ? { headers: input.headers } : {}),
        ...(input.body !== undefined ? { body: input.body } : {}),
      });
      return { status: answer.status, body: answer.body, truncated: answer.truncated };
    },
  },
};
