import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, readSection } from '../../config/index.ts';
import { mcpGatewayConfig } from './config.ts';
import { UPSTREAM_DEFAULTS } from './upstreams-config.ts';

const dir = mkdtempSync(join(tmpdir(), 'mcp-upstreams-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function fileWith(content: unknown): string {
  const path = join(dir, `mcp-${n++}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}
const load = (path: string) => readSection(mcpGatewayConfig, { SUITE_MCP_UPSTREAMS: path }).mcpUpstreams;
const refusal = (path: string) => {
  try {
    load(path);
  } catch (err) {
    return err;
  }
  return undefined;
};

describe("SUITE_MCP_UPSTREAMS, the gateway's upstream servers", () => {
  it("reads the desktop clients' mcpServers shape, stdio and Streamable HTTP, with the defaults of the limits", () => {
    const servers = load(
      fileWith({
        mcpServers: {
          everything: { command: 'npx', args: ['-y', 'x'], env: { KEY: 'v' } },
          remote: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer upstream' } },
          off: { command: 'never', disabled: true },
          tuned: {
            command: 'x',
            scopes: { read_file: 'files:read' },
            resourceScopes: { 'file:///{path}': 'files:read' },
            promptScopes: { summarize: 'files:read' },
            timeoutMs: 500,
            maxResultBytes: 2048,
            maxConcurrent: 2,
            autoApprove: ['y'],
          },
        },
      }),
    );
    expect(servers.map((s) => s.name)).toEqual(['everything', 'remote', 'tuned']);
    expect(servers[0]).toEqual({
      name: 'everything',
      transport: { kind: 'stdio', command: 'npx', args: ['-y', 'x'], env: { KEY: 'v' }, cwd: undefined },
      scopes: {},
      resourceScopes: {},
      promptScopes: {},
      ...UPSTREAM_DEFAULTS,
    });
    expect(servers[1]?.transport).toEqual({ kind: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer upstream' } });
    expect(servers[2]).toMatchObject({
      scopes: { read_file: 'files:read' },
      resourceScopes: { 'file:///{path}': 'files:read' },
      promptScopes: { summarize: 'files:read' },
      timeoutMs: 500,
      maxResultBytes: 2048,
      maxConcurrent: 2,
    });
    expect(Object.isFrozen(servers[0])).toBe(true);
  });

  it('has no upstream when the variable is unset', () => {
    expect(readSection(mcpGatewayConfig, {}).mcpUpstreams).toEqual([]);
  });

  it('refuses a bad file naming the variable and the server, never quoting a credential', () => {
    const cases: Array<[unknown, RegExp]> = [
      ['{not json', /cannot read .* as JSON/],
      [{ servers: {} }, /must hold \{"mcpServers"/],
      [{ mcpServers: { My_Server: { command: 'x' } } }, /server "My_Server": a name is 1-32 lower-case/],
      [{ mcpServers: { a: { args: [] } } }, /server "a": needs "command" \(stdio\) or "url"/],
      [{ mcpServers: { a: { url: 'ftp://x' } } }, /server "a": url must be an http/],
      [{ mcpServers: { a: { type: 'sse', url: 'http://x' } } }, /SSE transport is not supported/],
      [{ mcpServers: { a: { command: 'x', env: { TOKEN: 42 } } } }, /server "a": env must map names to strings/],
      [{ mcpServers: { a: { command: 'x', scopes: { t: '*' } } } }, /scopes\.t must be a scope/],
      [{ mcpServers: { a: { command: 'x', promptScopes: { p: 'noColon' } } } }, /promptScopes\.p must be a scope/],
      [{ mcpServers: { a: { command: 'x', resourceScopes: { 'x://y': 7 } } } }, /resourceScopes must map names to strings/],
      [{ mcpServers: { a: { command: 'x', timeoutMs: 0 } } }, /timeoutMs must be a whole number between/],
      [{ mcpServers: { a: { url: 'http://x', headers: { Authorization: ['secret-value'] } } } }, /headers must map names to strings/],
    ];
    for (const [content, message] of cases) {
      const err = refusal(fileWith(content));
      expect(err, String(message)).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).variable).toBe('SUITE_MCP_UPSTREAMS');
      expect((err as Error).message).toMatch(message);
      expect((err as Error).message).not.toContain('secret-value');
    }
    expect((refusal(join(dir, 'absent.json')) as Error).message).toMatch(/cannot read .*absent\.json as JSON \(ENOENT\)/);
  });
});
