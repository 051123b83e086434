import { Counter, Gauge, type Registry } from 'prom-client';
import type { Gateway } from './pool.ts';
import type { PolicySource } from './policy-source.ts';

const STATES = ['connecting', 'ready', 'down', 'stopped'] as const;
const byRegistry = new WeakMap<Registry, Set<Gateway>>();

/**
 * The upstreams' state on `/metrics`, read at scrape time: `mcp_upstream_up{upstream}` (1 when
 * ready), `mcp_upstream_state{upstream,state}`, `mcp_upstream_restarts{upstream}` (connections
 * made again since start), `mcp_upstream_in_flight{upstream}`, `mcp_upstream_tools{upstream}`.
 * Calls are counted by `mcp_tool_calls_total{tool,result}` under the gateway tool's name.
 */
export function gatewayMetrics(registry: Registry, gateway: Gateway): () => void {
  let gateways = byRegistry.get(registry);
  if (gateways === undefined) {
    const all = new Set<Gateway>();
    gateways = all;
    byRegistry.set(registry, all);
    const statuses = () => [...all].flatMap((g) => g.statuses());
    const gauge = (name: string, help: string, value: (s: ReturnType<Gateway['statuses']>[number]) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['upstream'] as const,
        registers: [registry],
        collect() {
          this.reset();
          for (const s of statuses()) this.set({ upstream: s.name }, value(s));
        },
      });
    gauge('mcp_upstream_up', 'Whether the MCP gateway is connected to the upstream (1) or not (0)', (s) => (s.state === 'ready' ? 1 : 0));
    gauge('mcp_upstream_restarts', 'Connections to the upstream made again since start', (s) => s.restarts);
    gauge('mcp_upstream_in_flight', 'Calls in flight to the upstream', (s) => s.inFlight);
    gauge('mcp_upstream_tools', 'Tools the upstream offers', (s) => s.tools);
    new Gauge({
      name: 'mcp_upstream_state',
      help: 'The upstream connection state (1 for the current one)',
      labelNames: ['upstream', 'state'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const s of statuses()) for (const state of STATES) this.set({ upstream: s.name, state }, s.state === state ? 1 : 0);
      },
    });
  }
  gateways.add(gateway);
  return () => gateways.delete(gateway);
}

const policiesByRegistry = new WeakMap<Registry, Set<PolicySource>>();

/**
 * What the policy file costs the calls it decides, where it runs, on `/metrics`:
 * `mcp_policy_evaluations_total` (calls whose rules were evaluated) and
 * `mcp_policy_evaluation_seconds_total` (the time their rules and budgets took): the ratio is the
 * mean per call, caches and all, which a hot loop's figure understates (docs/PERFORMANCE.md).
 */
export function policyMetrics(registry: Registry, source: PolicySource): () => void {
  let sources = policiesByRegistry.get(registry);
  if (sources === undefined) {
    const all = new Set<PolicySource>();
    sources = all;
    policiesByRegistry.set(registry, all);
    const counter = (name: string, help: string, value: (s: PolicySource) => number) =>
      new Counter({
        name,
        help,
        registers: [registry],
        collect() {
          this.reset();
          this.inc([...all].reduce((sum, s) => sum + value(s), 0));
        },
      });
    counter('mcp_policy_evaluations_total', "Upstream calls the gateway's policy file decided", (s) => s.evaluations.calls);
    counter('mcp_policy_evaluation_seconds_total', "Time spent evaluating the policy file's rules and budgets on those calls", (s) => s.evaluations.seconds);
  }
  sources.add(source);
  return () => sources.delete(source);
}
