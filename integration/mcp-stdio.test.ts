import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mintToken } from '../actors/capability/index.ts';
import { createHmacKeyRing } from '../core/capability/index.ts';
import { SERVICES, PORT_VARIABLES } from '../config/index.ts';
import { startTestSuite, type TestSuite } from '../testing/suite.ts';
import { NATS_URL } from '../testing/bus.ts';

/**
 * `suite mcp` as an MCP client launches it: a real child process on stdio, driven by the SDK's own
 * client, embedded (the suite in the child) and bridged (to a suite already running on this machine).
 */

const SUITE = new URL('../cli/suite.ts', import.meta.url).pathname;
const ephemeralPorts = Object.fromEntries(SERVICES.map((s) => [PORT_VARIABLES[s], '0']));

function baseEnv(extra: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', SUITE_LOG_LEVEL: 'info', ...ephemeralPorts, ...extra };
}

interface Child { client: Client; stderr: () => string }

async function launch(env: Record<string, string>): Promise<Child> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [SUITE, 'mcp'], env: baseEnv(env), stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (chunk: Buffer) => { err += chunk.toString(); });
  const client = new Client({ name: 'mcp-stdio-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => err };
}

/** The token listener's port, from the child's "MCP server on stdio" log line (read from its standard error). */
async function tokenPortOf(child: Child): Promise<number> {
  for (;;) {
    const line = child.stderr().split('\n').find((l) => l.includes('"msg":"MCP server on stdio"'));
    if (line !== undefined) return (JSON.parse(line) as { listeners: { token: number } }).listeners.token;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function revoke(tokenBase: string, adminKey: string, which: { jti: string } | { token: string }): Promise<void> {
  const res = await fetch(`${tokenBase}/auth/token/revoke`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-suite-admin-key': adminKey }, body: JSON.stringify(which),
  });
  expect(await res.json()).toMatchObject({ revoked: true });
}

describe('suite mcp refuses to start without a valid token', () => {
  it('exits non-zero with a clear message when SUITE_MCP_TOKEN is missing, writing nothing on stdout', () => {
    const r = spawnSync(process.execPath, [SUITE, 'mcp'], { env: baseEnv({ SUITE_HMAC_SECRET: randomBytes(32).toString('hex') }), input: '', encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/SUITE_MCP_TOKEN is not set/);
    expect(r.stdout).toBe('');
  });

  it('exits non-zero naming the refusal when the token is not one the suite signed', () => {
    const r = spawnSync(process.execPath, [SUITE, 'mcp'], {
      env: baseEnv({ SUITE_HMAC_SECRET: randomBytes(32).toString('hex'), SUITE_MCP_TOKEN: 'not.a.token' }), input: '', encoding: 'utf8', timeout: 60_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/SUITE_MCP_TOKEN refused: TOKEN_INVALID/);
    expect(r.stdout).toBe('');
  }, 60_000);
});

describe('suite mcp with no suite running: the suite embedded in the child', () => {
  const secret = randomBytes(32).toString('hex');
  const adminKey = `mcp-admin-${randomBytes(6).toString('hex')}`;
  let child: Child;
  let token: string;
  let port: number;

  beforeAll(async () => {
    const minted = await mintToken(await createHmacKeyRing([secret]), {
      sub: 'stdio-agent', scope: ['execution:record', 'execution:read'], lifetimeSeconds: 600, now: Math.floor(Date.now() / 1000),
    });
    token = minted.token;
    // Token port 0: the embedded suite binds one of its choosing and logs it (cli/mcp.ts).
    child = await launch({ SUITE_HMAC_SECRET: secret, SUITE_ADMIN_KEY: adminKey, SUITE_MCP_TOKEN: minted.token, SUITE_TOKEN_PORT: '0' });
    port = await tokenPortOf(child);
  }, 60_000);
  afterAll(async () => { await child?.client.close(); });

  it('lists only the tools its token can call', async () => {
    const names = (await child.client.listTools()).tools.map((t) => t.name).sort();
    expect(names).toEqual(['attention_list', 'execution_conditions', 'explain_execution', 'get_execution', 'record_execution', 'verify_execution']);
  });

  it('returns the signed trace of a call, which verifies with the published key', async () => {
    const result = await child.client.callTool({ name: 'attention_list', arguments: { limit: 5 } });
    expect(result.isError).toBeFalsy();
    const { trace } = result.structuredContent as { trace: Record<string, unknown> };
    expect(trace).toMatchObject({ subject: 'stdio-agent', module: 'mcp', action: 'attention_list', outcome: 'success' });
    const pem = ((await (await fetch(`http://127.0.0.1:${port}/executions/public-key`)).json()) as { publicKey: string }).publicKey;
    const verified = await child.client.callTool({ name: 'verify_execution', arguments: { record: trace, publicKey: pem } });
    expect((verified.structuredContent as { result: { valid: boolean } }).result.valid).toBe(true);
  });

  it('refuses an out-of-scope call with an MCP error naming the scope', async () => {
    await expect(child.client.callTool({ name: 'read_audit', arguments: {} })).rejects.toThrow(/CAPABILITY_INSUFFICIENT.*audit:read/);
  });

  it('keeps stdout for the protocol: its log goes to stderr', () => {
    // The client parsed every line of stdout as JSON-RPC above; the log lines are on stderr.
    expect(child.stderr()).toMatch(/"msg":"MCP server on stdio"/);
  });

  it('refuses the token on the next call once it is revoked, and lists no tool', async () => {
    // Minted outside the suite: revoked by the token itself (its jti and expiry are read from it).
    await revoke(`http://127.0.0.1:${port}`, adminKey, { token });
    await expect(child.client.callTool({ name: 'attention_list', arguments: {} })).rejects.toThrow(/TOKEN_REVOKED/);
    expect((await child.client.listTools()).tools).toEqual([]);
  });
});

describe('suite mcp with a suite running on this machine: bridged to its /mcp', () => {
  let t: TestSuite;
  let child: Child;
  let jti: string;

  beforeAll(async () => {
    t = await startTestSuite();
    const minted = await t.mint(['auth:token:validate'], { sub: 'bridged-agent' });
    jti = minted.jti;
    const port = new URL(t.url('token')).port;
    child = await launch({ SUITE_MCP_TOKEN: minted.token, SUITE_TOKEN_PORT: port });
  }, 60_000);
  afterAll(async () => {
    await child?.client.close();
    await t?.stop();
  });

  it('lists only the tools its token can call, and a call returns its trace', async () => {
    expect((await child.client.listTools()).tools.map((tool) => tool.name)).toEqual(['validate_token']);
    const result = await child.client.callTool({ name: 'validate_token', arguments: { token: 'x.y.z' } });
    const { trace } = result.structuredContent as { trace: Record<string, unknown> };
    expect(trace).toMatchObject({ subject: 'bridged-agent', module: 'mcp', action: 'validate_token' });
    expect(child.stderr()).toMatch(/bridged to the running suite/);
  });

  it('refuses the token on the next call once it is revoked', async () => {
    await revoke(t.url('token'), t.adminKey, { jti });
    await expect(child.client.callTool({ name: 'validate_token', arguments: { token: 'x.y.z' } })).rejects.toThrow(/TOKEN_REVOKED/);
    expect((await child.client.listTools()).tools).toEqual([]);
  });
});

describe('suite mcp with SUITE_NATS_URL: joins the bus as an edge', () => {
  const secret = randomBytes(32).toString('hex');
  const shared = { SUITE_NATS_URL: NATS_URL, SUITE_BUS_NAMESPACE: `mcp${randomBytes(4).toString('hex')}`, SUITE_HMAC_SECRET: secret };
  let t: TestSuite;
  let child: Child;
  let jti: string;

  beforeAll(async () => {
    // The actors (and the HTTP edges) in this process, the MCP edge in the child: one bus between them.
    t = await startTestSuite(shared);
    const minted = await t.mint(['execution:read'], { sub: 'bus-agent' });
    jti = minted.jti;
    // Token port 0: the child looks for no running suite (cli/mcp.ts), but joins the bus.
    child = await launch({ ...shared, SUITE_MCP_TOKEN: minted.token, SUITE_TOKEN_PORT: '0' });
  }, 60_000);
  afterAll(async () => {
    await child?.client.close();
    await t?.stop();
  });

  it('lists its tools and returns the signed trace of a call made over the bus', async () => {
    expect((await child.client.listTools()).tools.map((tool) => tool.name)).toContain('attention_list');
    const result = await child.client.callTool({ name: 'attention_list', arguments: {} });
    const { trace } = result.structuredContent as { trace: { id: string; subject: string; module: string } };
    expect(trace).toMatchObject({ subject: 'bus-agent', module: 'mcp' });
    // The record is on the chain the suite in this process keeps.
    const res = await fetch(t.url('token', `/executions/${trace.id}`), { headers: { authorization: `Bearer ${(await t.mint(['execution:read'])).token}` } });
    expect(res.status).toBe(200);
    expect(child.stderr()).toMatch(/"mode":"bus"/);
  });

  it('refuses the token on the next call once it is revoked elsewhere', async () => {
    await revoke(t.url('token'), t.adminKey, { jti });
    await expect.poll(async () => (await child.client.listTools()).tools.length, { timeout: 5_000 }).toBe(0);
    await expect(child.client.callTool({ name: 'attention_list', arguments: {} })).rejects.toThrow(/TOKEN_REVOKED/);
  });
});

describe('suite mcp and bad input on stdio', () => {
  it('answers garbage and bad calls with JSON-RPC errors, keeps serving, and stops cleanly on SIGTERM', async () => {
    const secret = randomBytes(32).toString('hex');
    const minted = await mintToken(await createHmacKeyRing([secret]), { sub: 'raw-agent', scope: ['execution:read'], lifetimeSeconds: 600, now: Math.floor(Date.now() / 1000) });
    const child = spawn(process.execPath, [SUITE, 'mcp'], { env: baseEnv({ SUITE_HMAC_SECRET: secret, SUITE_MCP_TOKEN: minted.token }), stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const answers = new Map<number, { result?: unknown; error?: { code: number; message: string } }>();
    const lines: string[] = [];
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      const message = JSON.parse(line) as { id?: number; result?: unknown; error?: { code: number; message: string } };
      if (typeof message.id === 'number') answers.set(message.id, message);
    });
    const send = (message: unknown) => child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
    const answer = async (id: number) => {
      await expect.poll(() => answers.has(id), { timeout: 30_000 }).toBe(true);
      return answers.get(id) as { result?: unknown; error?: { code: number; message: string } };
    };
    send('this is not json');
    send('{"jsonrpc":"2.0","id":"x","method":42}');
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    expect((await answer(1)).result).toMatchObject({ serverInfo: { name: 'agent-authority-suite' } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_execution', arguments: { id: 'exec_zz' } } });
    expect((await answer(2)).error?.message).toMatch(/arguments\/id/);
    send({ jsonrpc: '2.0', id: 3, method: 'no/such/method' });
    expect((await answer(3)).error?.code).toBe(-32601);
    send({ jsonrpc: '2.0', id: 4, method: 'tools/list' });
    expect(((await answer(4)).result as { tools: unknown[] }).tools.length).toBe(5);
    // Every line on stdout was a JSON-RPC message (JSON.parse above would have thrown otherwise).
    expect(lines.every((l) => l.startsWith('{"'))).toBe(true);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).not.toMatch(/"level":50/);
  }, 90_000);
});
