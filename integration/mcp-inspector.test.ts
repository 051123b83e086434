import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSuite, type TestSuite } from '../testing/suite.ts';
import { NODE, SERVER_EVERYTHING, writeUpstreamsFile } from '../testing/mcp-upstreams.ts';
import { mcpToolsOf } from '../cli/edge.ts';
import { SERVICE_MODULES } from '../services/index.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * The official MCP Inspector in CLI mode (a dev dependency, headless) lists the suite's tools and
 * calls one, over Streamable HTTP (`/mcp`) and over stdio (`suite mcp`, bridged to this suite), and
 * does the same with an upstream's tool through the gateway (server-everything over stdio).
 */

const INSPECTOR = new URL('../node_modules/.bin/mcp-inspector', import.meta.url).pathname;
const SUITE = new URL('../cli/suite.ts', import.meta.url).pathname;

let t: TestSuite;
let home: string;
let upstreams: ReturnType<typeof writeUpstreamsFile>;
beforeAll(async () => {
  upstreams = writeUpstreamsFile({ everything: { command: NODE, args: [SERVER_EVERYTHING, 'stdio'] } });
  t = await startTestSuite({ SUITE_MCP_UPSTREAMS: upstreams.path });
  home = mkdtempSync(join(tmpdir(), 'mcp-inspector-'));
}, machineTimeout(60_000));
afterAll(async () => {
  await t?.stop();
  upstreams?.cleanup();
  rmSync(home, { recursive: true, force: true });
});

/** Run the inspector without a terminal; resolves with its exit status and output. */
function inspector(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(INSPECTOR, ['--cli', ...args], {
      // Its catalog and settings in a throw-away home; never the developer's.
      env: { PATH: process.env.PATH ?? '', HOME: home, MCP_CATALOG_PATH: join(home, 'mcp.json'), CI: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

describe('the MCP Inspector CLI against the suite', () => {
  it('lists the tools a token grants and calls one over Streamable HTTP', { timeout: machineTimeout(120_000) }, async () => {
    const { token } = await t.mint(['execution:read'], { sub: 'inspector-http' });
    const common = [t.url('token', '/mcp'), '--transport', 'http', '--header', `Authorization: Bearer ${token}`];
    const list = await inspector([...common, '--method', 'tools/list']);
    expect(list.status, list.stderr).toBe(0);
    const names = (JSON.parse(list.stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name).sort();
    expect(names).toEqual(['attention_list', 'execution_conditions', 'explain_execution', 'get_execution', 'verify_execution']);
    const call = await inspector([...common, '--method', 'tools/call', '--tool-name', 'attention_list', '--tool-arg', 'limit=3']);
    expect(call.status, call.stderr).toBe(0);
    const result = JSON.parse(call.stdout) as { structuredContent: { trace: { module: string; action: string; signature: string } } };
    expect(result.structuredContent.trace).toMatchObject({ module: 'mcp', action: 'attention_list', signature: expect.any(String) });
  });

  it('finds no portability problem in the tool list in --strict mode: exit 0, no warning', { timeout: machineTimeout(120_000) }, async () => {
    // The suite's own tools: an upstream's schemas are its own business.
    const { token } = await t.mint([...new Set(mcpToolsOf(SERVICE_MODULES).map((tool) => tool.scope))], { sub: 'inspector-strict' });
    const list = await inspector([
      t.url('token', '/mcp'),
      '--transport',
      'http',
      '--header',
      `Authorization: Bearer ${token}`,
      '--method',
      'tools/list',
      '--strict',
    ]);
    expect(list.status, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as { tools: unknown[] }).tools.length).toBe(30);
    expect(list.stderr).not.toMatch(/warning|error/i);
  });

  it('lists the tools and calls one over stdio, with suite mcp as the server', { timeout: machineTimeout(120_000) }, async () => {
    const { token } = await t.mint(['auth:token:validate'], { sub: 'inspector-stdio' });
    const env = ['-e', `SUITE_MCP_TOKEN=${token}`, '-e', `SUITE_TOKEN_PORT=${new URL(t.url('token')).port}`, '-e', `PATH=${process.env.PATH ?? ''}`];
    const target = ['--', process.execPath, SUITE, 'mcp'];
    const list = await inspector([...env, '--method', 'tools/list', ...target]);
    expect(list.status, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)).toEqual(['validate_token']);
    const call = await inspector([...env, '--method', 'tools/call', '--tool-name', 'validate_token', '--tool-arg', 'token=x.y.z', ...target]);
    expect(call.status, call.stderr).toBe(0);
    expect((JSON.parse(call.stdout) as { structuredContent: { trace: { action: string } } }).structuredContent.trace.action).toBe('validate_token');
  });

  it('lists and calls an upstream tool through the gateway', { timeout: machineTimeout(120_000) }, async () => {
    // Connected in the background after the listener is up: wait until it says ready (the test's timeout bounds it).
    const ready = async () =>
      (
        (await (await fetch(t.url('token', '/mcp/upstreams'), { headers: { 'x-suite-admin-key': t.adminKey } })).json()) as {
          upstreams: Array<{ state: string }>;
        }
      ).upstreams[0]?.state === 'ready';
    while (!(await ready())) await new Promise((resolve) => setTimeout(resolve, 50));
    const { token } = await t.mint(['mcp:everything:get-sum', 'mcp:everything:echo'], { sub: 'inspector-gateway' });
    const common = [t.url('token', '/mcp'), '--transport', 'http', '--header', `Authorization: Bearer ${token}`];
    const list = await inspector([...common, '--method', 'tools/list']);
    expect(list.status, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name).sort()).toEqual([
      'everything__echo',
      'everything__get-sum',
    ]);
    const call = await inspector([...common, '--method', 'tools/call', '--tool-name', 'everything__get-sum', '--tool-arg', 'a=20', 'b=22']);
    expect(call.status, call.stderr).toBe(0);
    const result = JSON.parse(call.stdout) as {
      content: Array<{ text: string }>;
      _meta: Record<string, { module: string; action: string; signature: string }>;
    };
    expect(result.content[0]?.text).toMatch(/\b42\b/);
    expect(result._meta['agent-authority-suite/trace']).toMatchObject({ module: 'mcp:everything', action: 'get-sum', signature: expect.any(String) });
  });
});
