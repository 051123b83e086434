import { readFileSync } from 'node:fs';
import { parsePolicy, type Policy } from '../core/gateway-policy/index.ts';

/**
 * The MCP gateway's policy file (`SUITE_MCP_POLICY`, docs/MCP.md "The policy file"): read and
 * checked once at start. A file that cannot be read or has a bad rule stops the start, the error
 * naming the variable and the rule (by index and name) and what is wrong with it.
 */
export function loadMcpPolicy(path: string | undefined, fail: (variable: string, message: string) => Error): Policy | undefined {
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw fail('SUITE_MCP_POLICY', `cannot be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const parsed = parsePolicy(text);
  if (!parsed.ok) throw fail('SUITE_MCP_POLICY', parsed.message);
  return parsed.policy;
}
