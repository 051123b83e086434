/**
 * The 100-rule policy files bench/mcp-policy.ts measures, each against a call of server-everything's
 * `echo` with `{message: "a short message, ..."}` by a caller with no tenant, which each allows.
 */

/** Worst case: 99 deny rules on the called tool (half by name, half by a glob) whose `when` reads the arguments and does not match, then an allow: every rule evaluated. */
export const worstCase = {
  rules: [
    ...Array.from({ length: 99 }, (_, i) => ({
      name: `r${i}`,
      server: 'everything',
      tool: i % 2 === 0 ? 'echo' : 'ech?',
      when: `args.message.startsWith("blocked-${i}") || (caller.tenant != null && caller.tenant == "t${i}")`,
      effect: 'deny',
      reason: `rule ${i}`,
    })),
    { name: 'rest', server: 'everything', tool: '*', effect: 'allow' },
  ],
};

const SERVERS = ['bank', 'mail', 'search', 'files'] as const;
const TOOLS: Record<(typeof SERVERS)[number], string[]> = {
  bank: ['transfer', 'balance', 'close_account', 'open_account', 'statement'],
  mail: ['send', 'read', 'delete', 'forward'],
  search: ['query', 'crawl', 'index'],
  files: ['read', 'write', 'delete', 'move', 'list'],
};

/** One rule of the kind a real file holds, on `server`'s `tool`, varied by `i`. */
function ruleOn(server: string, tool: string, i: number): Record<string, unknown> {
  switch (i % 5) {
    case 0:
      return {
        name: `big-${i}`,
        server,
        tool,
        when: 'has(args.amount) && args.amount >= 1000.0',
        effect: 'approve',
        approvers: `${server}:approve`,
        ttl: '15m',
      };
    case 1:
      return {
        name: `blocked-${i}`,
        server,
        tool,
        when: `has(args.to) && args.to in ["mallory", "eve-${i}"]`,
        effect: 'deny',
        reason: 'that recipient is blocked',
      };
    case 2:
      return { name: `per-hour-${i}`, server, tool, budget: { calls: 100, per: '1h' } };
    case 3:
      return { name: `night-${i}`, server, tool, when: 'timestamp(time).getHours("UTC") >= 22', effect: 'deny', reason: 'closed at night' };
    default:
      return { name: `staff-${i}`, server, tool, when: '!("staff" in caller.scope)', effect: 'deny', reason: 'staff only' };
  }
}

/**
 * A realistic file: 100 rules over five servers and their tools; on the called tool, four rules
 * (two by name, one glob on the server's every tool, then an allow by name), so the call evaluates
 * three `when`s and is allowed by a rule (its record carries `governance`, as in a real allow-list).
 */
export const realistic = {
  rules: [
    ...Array.from({ length: 88 }, (_, i) => {
      const server = SERVERS[i % SERVERS.length] as (typeof SERVERS)[number];
      const tools = TOOLS[server];
      return ruleOn(server, tools[Math.floor(i / SERVERS.length) % tools.length] as string, i);
    }),
    { name: 'no-secrets', server: 'everything', tool: 'echo', when: 'args.message.contains("password")', effect: 'deny', reason: 'no secrets in echoes' },
    { name: 'everything-tenant', server: 'everything', tool: '*', when: 'caller.tenant == "suspended"', effect: 'deny', reason: 'tenant suspended' },
    { name: 'long-echo', server: 'everything', tool: 'echo', when: 'size(args.message) > 4096', effect: 'deny', reason: 'too long' },
    { name: 'echo', server: 'everything', tool: 'echo', effect: 'allow' },
    ...['add', 'longRunningOperation', 'sampleLLM', 'getTinyImage', 'printEnv', 'annotatedMessage', 'getResourceReference', 'structuredContent'].map(
      (tool, i) => ruleOn('everything', tool, i),
    ),
  ],
};

/** 100 rules on other tools and servers: the index gives the call none. */
export const elsewhere = {
  rules: Array.from({ length: 100 }, (_, i) => ({
    name: `o${i}`,
    server: i % 2 === 0 ? 'bank' : 'everything',
    tool: `tool-${i}`,
    when: 'args.amount > 1000',
    effect: 'deny',
    reason: 'too much',
  })),
};
