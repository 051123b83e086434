import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readSection } from '../../config/index.ts';
import { mcpGatewayConfig } from './config.ts';

const dir = mkdtempSync(join(tmpdir(), 'mcp-policy-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const load = (env: Record<string, string>) => readSection(mcpGatewayConfig, env);

describe("SUITE_MCP_POLICY, the gateway's policy file at start", () => {
  it('keeps the path, to reload it, and the policy as checked; none when unset', () => {
    const path = join(dir, 'good.json');
    writeFileSync(path, JSON.stringify({ rules: [{ name: 'no-deletes', server: 'files', tool: 'delete_file', effect: 'deny', reason: 'read only' }] }));
    const { mcpPolicy } = load({ SUITE_MCP_POLICY: path });
    expect(mcpPolicy?.path).toBe(path);
    expect(mcpPolicy?.policy.rules).toHaveLength(1);
    expect(load({}).mcpPolicy).toBeUndefined();
  });

  it('stops the start naming the variable, for a file that cannot be read or a bad rule', () => {
    expect(() => load({ SUITE_MCP_POLICY: join(dir, 'absent.json') })).toThrow(/^SUITE_MCP_POLICY: cannot be read: ENOENT$/);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ rules: [{ name: 'broken', server: 'files', tool: 'x', when: 'args.path ==', effect: 'deny', reason: 'x' }] }));
    expect(() => load({ SUITE_MCP_POLICY: bad })).toThrow(/SUITE_MCP_POLICY: rule 0 \("broken"\): when is not valid CEL/);
  });
});
