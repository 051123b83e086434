import type { Writable } from 'node:stream';
import { setTimeout as wait } from 'node:timers/promises';

/**
 * How `suite mcp` gets the capability token it relays with, when SUITE_MCP_TOKEN is not given
 * (docs/MCP.md, docs/OAUTH.md): from the suite's own OAuth token endpoint, by client credentials
 * (SUITE_MCP_CLIENT_ID and SUITE_MCP_CLIENT_SECRET, a confidential client) or by the device grant
 * (SUITE_MCP_CLIENT_ID alone, a public client: a person approves the user code written on stderr).
 * Either way the token's audience is the suite's `/mcp` (RFC 8707 `resource`).
 */
export interface McpCredentials {
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly scope?: string;
}

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
type Answer = Record<string, unknown> & { error?: string; error_description?: string };

async function post(url: URL, form: Record<string, string>, headers: Record<string, string> = {}): Promise<{ status: number; body: Answer }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  const body = (await res.json().catch(() => ({}))) as Answer;
  return { status: res.status, body };
}

const described = (b: Answer) => `${b.error ?? 'no token'}${b.error_description !== undefined ? `: ${b.error_description}` : ''}`;

/** The access token, or an Error saying what the suite answered. */
export async function obtainMcpToken(base: URL, c: McpCredentials, stderr: Writable, signal?: AbortSignal): Promise<string> {
  const resource = new URL('/mcp', base).href;
  const scope: Record<string, string> = c.scope !== undefined ? { scope: c.scope } : {};
  if (c.clientSecret !== undefined) {
    // client_secret_basic (RFC 6749 §2.3.1): both parts form-encoded before base64.
    const basic = Buffer.from(`${encodeURIComponent(c.clientId)}:${encodeURIComponent(c.clientSecret)}`).toString('base64');
    const { body } = await post(new URL('/oauth/token', base), { grant_type: 'client_credentials', resource, ...scope }, { authorization: `Basic ${basic}` });
    if (typeof body.access_token !== 'string') throw new Error(`client credentials refused: ${described(body)}`);
    return body.access_token;
  }
  const started = await post(new URL('/oauth/device_authorization', base), { client_id: c.clientId, resource, ...scope });
  if (typeof started.body.device_code !== 'string') throw new Error(`device authorization refused: ${described(started.body)}`);
  const { device_code: deviceCode, user_code: userCode, verification_uri: page, verification_uri_complete: complete } = started.body as Record<string, string>;
  if (deviceCode === undefined) throw new Error('device authorization answered no device code');
  stderr.write(`suite mcp: to approve this MCP server, open ${page} and enter ${userCode} (or open ${complete})\n`);
  let interval = Number(started.body.interval ?? 5);
  for (;;) {
    // RFC 8628 §3.5: wait the interval between polls; slow_down adds five seconds.
    await wait(interval * 1000, undefined, signal !== undefined ? { signal } : undefined);
    const { body } = await post(new URL('/oauth/token', base), { grant_type: DEVICE_GRANT, client_id: c.clientId, device_code: deviceCode });
    if (typeof body.access_token === 'string') {
      stderr.write('suite mcp: approved\n');
      return body.access_token;
    }
    if (body.error === 'authorization_pending') continue;
    if (body.error === 'slow_down') {
      interval += 5;
      continue;
    }
    throw new Error(`device grant ended: ${described(body)}`);
  }
}
