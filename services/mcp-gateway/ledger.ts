/** How many of the latest calls the ledger keeps, each with its trace's id. */
export const RECENT_CALLS = 50;

export interface CallTally {
  readonly upstream: string;
  /** The upstream's tool name, `prompts/get <prompt>` or `resources/read`. */
  readonly name: string;
  readonly success: number;
  readonly failure: number;
  readonly lastAt: string;
  /** The execution record of the latest call: the dashboard links it to its record. */
  readonly lastTraceId: string;
}

export interface RecentCall {
  readonly at: string;
  readonly upstream: string;
  readonly name: string;
  readonly outcome: 'success' | 'failure';
  readonly traceId: string;
}

/** Whose calls a view shows: every tenant's (the admin key, an untenanted token), or one tenant's. */
export type LedgerView = { readonly all: true } | { readonly tenantId: string };

interface Tally {
  upstream: string;
  name: string;
  success: number;
  failure: number;
  lastAt: string;
  lastTraceId: string;
}

/**
 * The traced calls of one process's gateway, per upstream and tool (or prompt, or resource read),
 * and the latest few with their trace ids (`GET /mcp/calls`, the dashboard's gateway view). In
 * memory, from this process's start: the execution chain is the durable account of every call, and
 * `mcp_tool_calls_total` the one a monitoring system sums across replicas. Refused calls are not
 * here (they reached no upstream): they are in the audit trail and in `result="refused"`.
 *
 * Kept per tenant (untenanted calls under their own key), so that a tenant's view holds its own
 * calls only and its latest calls are not pushed out by another tenant's; the whole view sums them.
 */
export class CallLedger {
  /** tenant key ('' for untenanted calls) → `upstream\nname` → tally. */
  readonly #tallies = new Map<string, Map<string, Tally>>();
  readonly #recent = new Map<string, RecentCall[]>();
  readonly #all: RecentCall[] = [];
  readonly since = new Date().toISOString();

  record(upstream: string, name: string, success: boolean, traceId: string, tenantId?: string | null): void {
    const at = new Date().toISOString();
    const tenant = tenantId ?? '';
    let tallies = this.#tallies.get(tenant);
    if (tallies === undefined) {
      tallies = new Map();
      this.#tallies.set(tenant, tallies);
    }
    const key = `${upstream}\n${name}`;
    let tally = tallies.get(key);
    if (tally === undefined) {
      tally = { upstream, name, success: 0, failure: 0, lastAt: at, lastTraceId: traceId };
      tallies.set(key, tally);
    }
    if (success) tally.success++;
    else tally.failure++;
    tally.lastAt = at;
    tally.lastTraceId = traceId;
    const call: RecentCall = { at, upstream, name, outcome: success ? 'success' : 'failure', traceId };
    let recent = this.#recent.get(tenant);
    if (recent === undefined) {
      recent = [];
      this.#recent.set(tenant, recent);
    }
    for (const list of [recent, this.#all]) {
      list.unshift(call);
      if (list.length > RECENT_CALLS) list.length = RECENT_CALLS;
    }
  }

  /** Tallies by upstream, then name; the latest calls, newest first: of every tenant, or of one. */
  snapshot(view: LedgerView = { all: true }): { since: string; calls: CallTally[]; recent: RecentCall[] } {
    const sources = 'all' in view ? [...this.#tallies.values()] : [this.#tallies.get(view.tenantId) ?? new Map<string, Tally>()];
    const summed = new Map<string, Tally>();
    for (const tallies of sources) {
      for (const [key, t] of tallies) {
        const sum = summed.get(key);
        if (sum === undefined) {
          summed.set(key, { ...t });
          continue;
        }
        sum.success += t.success;
        sum.failure += t.failure;
        if (t.lastAt >= sum.lastAt) {
          sum.lastAt = t.lastAt;
          sum.lastTraceId = t.lastTraceId;
        }
      }
    }
    const calls = [...summed.values()].sort((a, b) => a.upstream.localeCompare(b.upstream) || a.name.localeCompare(b.name));
    const recent = 'all' in view ? this.#all : (this.#recent.get(view.tenantId) ?? []);
    return { since: this.since, calls, recent: [...recent] };
  }
}
