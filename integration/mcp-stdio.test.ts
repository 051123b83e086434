import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startTestSuite, type TestSuite } from '../testing/suite.ts';
import { closedAddress } from '../testing/closed-address.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * `suite mcp` as a desktop MCP client launches it (docs/MCP.md, "stdio"): exactly the documented
 * command, from `/`, with a bare PATH (where `node`, if any, is the machine's older one), relaying to
 * a suite already running. Driven by the SDK's own client, and by raw JSON-RPC lines where the exit
 * status and every byte of standard output matter.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const DOC = readFileSync(`${ROOT}/docs/MCP.md`, 'utf8');
/** What a desktop app gives a server it launches: no project folder on PATH, no npm, no shell. */
const BARE_PATH = '/usr/bin:/bin';

interface Launch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The JSON block under a heading of docs/MCP.md, its placeholders filled in. */
function documentedLaunch(heading: string, token: string | undefined, tokenUrl: string): Launch {
  const at = DOC.indexOf(`#### ${heading}`);
  expect(at, heading).toBeGreaterThan(-1);
  const block = /```json\n([\s\S]*?)\n```/.exec(DOC.slice(at));
  const filled = (block?.[1] ?? '').replaceAll('/path/to/agent-authority-suite', ROOT).replaceAll('http://127.0.0.1:8081', tokenUrl);
  const parsed = JSON.parse(filled) as { mcpServers?: Record<string, Launch>; servers?: Record<string, Launch> };
  const entry = (parsed.mcpServers ?? parsed.servers)?.['agent-authority-suite'] as Launch;
  const env = { ...entry.env };
  if (token === undefined) delete env.SUITE_MCP_TOKEN;
  else env.SUITE_MCP_TOKEN = token;
  return { command: entry.command, args: entry.args, env };
}

async function connect(launch: Launch): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ ...launch, env: { ...launch.env, PATH: BARE_PATH }, cwd: '/', stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const client = new Client({ name: 'mcp-stdio-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => err };
}

interface Answer {
  id?: number | string;
  result?: unknown;
  error?: { code: number; message: string; data?: { code?: string } };
}

/** Launch, send `initialize`, read until the process exits: its answers, every stdout line, its status. */
async function initializeRaw(launch: Launch): Promise<{ answers: Answer[]; lines: string[]; status: number | null; stderr: string }> {
  const child = spawn(launch.command, launch.args, { cwd: '/', env: { ...launch.env, PATH: BARE_PATH }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const lines: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.stdin.write(
    `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`,
  );
  const status = await exited;
  return { answers: lines.map((l) => JSON.parse(l) as Answer), lines, status, stderr };
}

async function revoke(t: TestSuite, jti: string): Promise<void> {
  const res = await fetch(t.url('token', '/auth/token/revoke'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-suite-admin-key': t.adminKey },
    body: JSON.stringify({ jti }),
  });
  expect(await res.json()).toMatchObject({ revoked: true });
}

let t: TestSuite;
let tokenUrl: string;
beforeAll(async () => {
  t = await startTestSuite();
  tokenUrl = t.url('token');
}, machineTimeout(60_000));
afterAll(() => t?.stop());

describe('suite mcp refuses a session it cannot serve at initialize, then exits non-zero', () => {
  it('answers initialize with TOKEN_MISSING and exits 2 when SUITE_MCP_TOKEN is not set, writing only the protocol on stdout', {
    timeout: machineTimeout(60_000),
  }, async () => {
    const r = await initializeRaw(documentedLaunch('Claude Desktop', undefined, tokenUrl));
    expect(r.status).toBe(2);
    expect(r.answers).toEqual([expect.objectContaining({ id: 1, error: expect.objectContaining({ code: -32001, data: { code: 'TOKEN_MISSING' } }) })]);
    expect(r.answers[0]?.error?.message).toMatch(/^SUITE_MCP_TOKEN is not set/);
    expect(r.stderr).toMatch(/suite mcp: SUITE_MCP_TOKEN is not set/);
  });

  it("answers initialize with the suite's refusal of a garbage, an expired and a revoked token, and exits 1", {
    timeout: machineTimeout(120_000),
  }, async () => {
    const revoked = await t.mint(['execution:read'], { sub: 'revoked-before-start' });
    await revoke(t, revoked.jti);
    const cases: Array<[string, string]> = [
      ['not.a.token', 'TOKEN_INVALID'],
      [await t.expiredToken(['execution:read']), 'TOKEN_EXPIRED'],
      [revoked.token, 'TOKEN_REVOKED'],
    ];
    for (const [token, code] of cases) {
      const r = await initializeRaw(documentedLaunch('Claude Desktop', token, tokenUrl));
      expect({ code, status: r.status }).toEqual({ code, status: 1 });
      expect(r.answers[0]?.error, code).toMatchObject({ code: -32001, data: { code } });
      expect(r.answers[0]?.error?.message, code).toMatch(new RegExp(`^SUITE_MCP_TOKEN refused: ${code}: `));
      expect(r.stderr).toContain(`SUITE_MCP_TOKEN refused: ${code}`);
    }
  });

  it('says the MCP error prefix once when the SDK client is refused', { timeout: machineTimeout(60_000) }, async () => {
    const refused = connect(documentedLaunch('Claude Desktop', 'not.a.token', tokenUrl));
    await expect(refused).rejects.toThrow(/^MCP error -32001: SUITE_MCP_TOKEN refused: TOKEN_INVALID: /);
    await expect(refused).rejects.not.toThrow(/MCP error.*MCP error/);
  });

  it('answers initialize with "no suite answers" when nothing listens at SUITE_TOKEN_URL, and starts no listener', {
    timeout: machineTimeout(60_000),
  }, async () => {
    const nowhere = await closedAddress();
    try {
      const r = await initializeRaw(documentedLaunch('Claude Desktop', 'any.token.here', nowhere.url));
      expect(r.status).toBe(1);
      expect(r.answers[0]?.error).toMatchObject({ code: -32603, data: { code: 'SERVICE_UNAVAILABLE' } });
      expect(r.answers[0]?.error?.message).toMatch(new RegExp(`^no suite answers at ${nowhere.url.replaceAll('.', '\\.')} \\(SUITE_TOKEN_URL\\)`));
      expect(r.stderr).not.toMatch(/Server listening/);
      await expect(fetch(`${nowhere.url}/health`)).rejects.toThrow();
    } finally {
      await nowhere.release();
    }
  });
});

describe('a suite mcp session relayed to the running suite', () => {
  let session: { client: Client; stderr: () => string };
  let jti: string;
  beforeAll(async () => {
    const minted = await t.mint(['execution:record', 'execution:read'], { sub: 'stdio-agent' });
    jti = minted.jti;
    session = await connect(documentedLaunch('Claude Desktop', minted.token, tokenUrl));
  }, machineTimeout(60_000));
  afterAll(() => session?.client.close());

  it('was launched with the documented Claude Desktop command from / with a bare PATH, and completed initialize', () => {
    expect(session.client.getServerVersion()).toMatchObject({ name: 'agent-authority-suite' });
  });

  // A launch (each 1-6 s at load) only for a configuration whose command, arguments or environment
  // differ from Claude Desktop's: the same launch again would show nothing the session does not.
  for (const heading of ['Cursor', 'VS Code']) {
    it(`launches the ${heading} command from / with a bare PATH and completes initialize and tools/list (the session's launch if they are the same)`, {
      timeout: machineTimeout(60_000),
    }, async () => {
      const { token } = await t.mint(['auth:token:validate'], { sub: `desktop-${heading}` });
      const launch = documentedLaunch(heading, token, tokenUrl);
      if (isDeepStrictEqual(launch, documentedLaunch('Claude Desktop', token, tokenUrl))) {
        expect(session.client.getServerVersion()).toMatchObject({ name: 'agent-authority-suite' });
        return;
      }
      const { client } = await connect(launch);
      expect(client.getServerVersion()).toMatchObject({ name: 'agent-authority-suite' });
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['validate_token']);
      await client.close();
    });
  }

  it('lists only the tools its token can call', async () => {
    const names = (await session.client.listTools()).tools.map((tool) => tool.name).sort();
    expect(names).toEqual(['attention_list', 'execution_conditions', 'explain_execution', 'get_execution', 'record_execution', 'verify_execution']);
  });

  it('returns the signed trace of a call, which verifies with the published key', async () => {
    const result = await session.client.callTool({ name: 'attention_list', arguments: { limit: 5 } });
    expect(result.isError).toBeFalsy();
    const { trace } = result.structuredContent as { trace: Record<string, unknown> };
    expect(trace).toMatchObject({ subject: 'stdio-agent', module: 'mcp', action: 'attention_list', outcome: 'success' });
    const pem = ((await (await fetch(t.url('token', '/executions/public-key'))).json()) as { publicKey: string }).publicKey;
    const verified = await session.client.callTool({ name: 'verify_execution', arguments: { record: trace, publicKey: pem } });
    expect((verified.structuredContent as { result: { valid: boolean } }).result.valid).toBe(true);
  });

  it('refuses an out-of-scope call with an MCP error naming the scope, the prefix said once', async () => {
    const call = session.client.callTool({ name: 'read_audit', arguments: {} });
    await expect(call).rejects.toThrow(/^MCP error -32001: CAPABILITY_INSUFFICIENT: (the )?token does not grant audit:read$/);
  });

  it('keeps stdout for the protocol: its log goes to stderr', () => {
    // The client parsed every line of stdout as JSON-RPC above; the log lines are on stderr.
    expect(session.stderr()).toMatch(/"msg":"MCP server on stdio, relaying to the suite"/);
  });

  it('refuses the token on the next call once it is revoked, listing tools included', async () => {
    await revoke(t, jti);
    await expect(session.client.callTool({ name: 'attention_list', arguments: {} })).rejects.toThrow(/^MCP error -32001: TOKEN_REVOKED/);
    // /mcp answers a revoked token 401 (RFC 9728), which suite mcp relays as the same refusal.
    await expect(session.client.listTools()).rejects.toThrow(/^MCP error -32001: TOKEN_REVOKED/);
  });
});

describe('suite mcp and bad input on stdio', () => {
  it('answers garbage and bad calls with JSON-RPC errors, keeps serving, and stops cleanly on SIGTERM', { timeout: machineTimeout(90_000) }, async () => {
    const { token } = await t.mint(['execution:read'], { sub: 'raw-agent' });
    const launch = documentedLaunch('Claude Desktop', token, tokenUrl);
    const child = spawn(launch.command, launch.args, { cwd: '/', env: { ...launch.env, PATH: BARE_PATH }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const answers = new Map<number, Answer>();
    const lines: string[] = [];
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      const message = JSON.parse(line) as Answer;
      if (typeof message.id === 'number') answers.set(message.id, message);
    });
    const send = (message: unknown) => child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
    const answer = async (id: number) => {
      await expect.poll(() => answers.has(id), { timeout: 30_000 }).toBe(true);
      return answers.get(id) as Answer;
    };
    send('this is not json');
    send('{"jsonrpc":"2.0","id":"x","method":42}');
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    expect((await answer(1)).result).toMatchObject({ serverInfo: { name: 'agent-authority-suite' } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_execution', arguments: { id: 'exec_zz' } } });
    expect((await answer(2)).error?.message).toMatch(/^arguments\/id/);
    send({ jsonrpc: '2.0', id: 3, method: 'no/such/method' });
    expect((await answer(3)).error?.code).toBe(-32601);
    send({ jsonrpc: '2.0', id: 4, method: 'tools/list' });
    expect(((await answer(4)).result as { tools: unknown[] }).tools.length).toBe(5);
    // Every line on stdout was a JSON-RPC message (JSON.parse above would have thrown otherwise).
    expect(lines.every((l) => l.startsWith('{"'))).toBe(true);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).not.toMatch(/"level":50/);
  });
});
