import { readFileSync } from 'node:fs';
import { parsePolicy, type Policy } from '../../core/gateway-policy/index.ts';

/** The policy file named by `SUITE_MCP_POLICY`, and the policy it held at start. */
export interface McpPolicyFile {
  readonly path: string;
  readonly policy: Policy;
}

/** Read and check the policy file: the policy, or why it is refused (unreadable, or the bad rule named). */
export function readMcpPolicy(path: string): { ok: true; policy: Policy } | { ok: false; message: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    return { ok: false, message: `cannot be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}` };
  }
  return parsePolicy(text);
}

/**
 * The MCP gateway's policy file (`SUITE_MCP_POLICY`, docs/MCP.md "The policy file"): read and
 * checked at start; a file that cannot be read or has a bad rule stops the start, the error naming
 * the variable and the rule (by index and name) and what is wrong with it. Reloaded later without a
 * restart (PolicySource, calling `readMcpPolicy` again).
 */
export function loadMcpPolicy(path: string | undefined, fail: (variable: string, message: string) => Error): McpPolicyFile | undefined {
  if (path === undefined) return undefined;
  const read = readMcpPolicy(path);
  if (!read.ok) throw fail('SUITE_MCP_POLICY', read.message);
  return { path, policy: read.policy };
}
