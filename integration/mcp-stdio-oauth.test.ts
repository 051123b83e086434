import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startTestSuite, type TestSuite } from '../testing/suite.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * `suite mcp` without SUITE_MCP_TOKEN (docs/OAUTH.md): it obtains its token from the suite's OAuth
 * token endpoint, by client credentials (SUITE_MCP_CLIENT_ID and _SECRET) or by the device grant
 * (SUITE_MCP_CLIENT_ID of a public client: the user code on stderr, approved on the consent page).
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
let t: TestSuite;
beforeAll(async () => {
  t = await startTestSuite();
}, machineTimeout(60_000));
afterAll(() => t?.stop());

function launch(env: Record<string, string>): { transport: StdioClientTransport; stderr: () => string; waitFor: (re: RegExp) => Promise<RegExpExecArray> } {
  const transport = new StdioClientTransport({
    command: `${ROOT}/node_modules/.bin/node`,
    args: [`${ROOT}/cli/suite.ts`, 'mcp'],
    cwd: '/',
    stderr: 'pipe',
    env: { PATH: '/usr/bin:/bin', SUITE_TOKEN_URL: t.url('token'), ...env },
  });
  let err = '';
  const waiters: Array<() => void> = [];
  transport.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
    for (const w of waiters.splice(0)) w();
  });
  const waitFor = (re: RegExp) =>
    new Promise<RegExpExecArray>((resolve) => {
      const check = () => {
        const m = re.exec(err);
        if (m !== null) resolve(m);
        else waiters.push(check);
      };
      check();
    });
  return { transport, stderr: () => err, waitFor };
}

describe('suite mcp obtains its token by OAuth', () => {
  it("by client credentials, for the /mcp resource, within the client's ceiling", { timeout: machineTimeout(60_000) }, async () => {
    const reg = await fetch(t.url('token', '/oauth/register'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-suite-admin-key': t.adminKey },
      body: JSON.stringify({ client_name: 'stdio agent', grant_types: ['client_credentials'], scope: 'execution:read' }),
    });
    const c = (await reg.json()) as { client_id: string; client_secret: string };
    const { transport } = launch({ SUITE_MCP_CLIENT_ID: c.client_id, SUITE_MCP_CLIENT_SECRET: c.client_secret });
    const client = new Client({ name: 'stdio-oauth', version: '1' });
    await client.connect(transport);
    const tools = (await client.listTools()).tools.map((x) => x.name);
    expect(tools).toContain('get_execution');
    expect(tools).not.toContain('mint_token');
    await client.close();
  });

  it('refuses initialize saying why when the secret is wrong', { timeout: machineTimeout(60_000) }, async () => {
    const reg = await fetch(t.url('token', '/oauth/register'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-suite-admin-key': t.adminKey },
      body: JSON.stringify({ client_name: 'stdio agent', grant_types: ['client_credentials'], scope: 'execution:read' }),
    });
    const c = (await reg.json()) as { client_id: string };
    const { transport } = launch({ SUITE_MCP_CLIENT_ID: c.client_id, SUITE_MCP_CLIENT_SECRET: 'wrong' });
    const client = new Client({ name: 'stdio-oauth', version: '1' });
    await expect(client.connect(transport)).rejects.toThrow(/client credentials refused: invalid_client/);
  });

  it('by the device grant: the user code on stderr, a person approves it, the session starts', { timeout: machineTimeout(60_000) }, async () => {
    const reg = await fetch(t.url('token', '/oauth/register'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'stdio device', token_endpoint_auth_method: 'none', grant_types: ['urn:ietf:params:oauth:grant-type:device_code'] }),
    });
    const { client_id: clientId } = (await reg.json()) as { client_id: string };
    const { transport, waitFor } = launch({ SUITE_MCP_CLIENT_ID: clientId, SUITE_MCP_SCOPE: 'execution:read audit:read' });
    const client = new Client({ name: 'stdio-oauth', version: '1' });
    const connected = client.connect(transport);
    const [, page, userCode] = await waitFor(/open (\S+) and enter ([A-Z]{4}-[A-Z]{4})/);
    expect(page).toBe(t.url('token', '/oauth/device'));
    const html = await (await fetch(`${page}?user_code=${userCode}`)).text();
    const body = new URLSearchParams({
      request_id: /name="request_id" value="([^"]+)"/.exec(html)![1]!,
      csrf: /name="csrf" value="([^"]+)"/.exec(html)![1]!,
      decision: 'approve',
      admin_key: t.adminKey,
      scope: 'execution:read',
    });
    const decided = await fetch(t.url('token', '/oauth/consent'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    });
    expect(decided.status).toBe(200);
    await connected;
    const tools = (await client.listTools()).tools.map((x) => x.name);
    expect(tools).toContain('get_execution');
    expect(tools).not.toContain('list_audit'); // audit:read was asked, the person unticked it
    await client.close();
  });
});
