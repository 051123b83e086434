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

/**
 * The traced calls of one process's gateway, per upstream and tool (or prompt, or resource read),
 * and the latest few with their trace ids (`GET /mcp/calls`, the dashboard's gateway view). In
 * memory, from this process's start: the execution chain is the durable account of every call, and
 * `mcp_tool_calls_total` the one a monitoring system sums across replicas. Refused calls are not
 * here (they reached no upstream): they are in the audit trail and in `result="refused"`.
 */
export class CallLedger {
  readonly #tallies = new Map<string, { upstream: string; name: string; success: number; failure: number; lastAt: string; lastTraceId: string }>();
  readonly #recent: RecentCall[] = [];
  readonly since = new Date().toISOString();

  record(upstream: string, name: string, success: boolean, traceId: string): void {
    const at = new Date().toISOString();
    const key = `${upstream}\n${name}`;
    let tally = this.#tallies.get(key);
    if (tally === undefined) {
      tally = { upstream, name, success: 0, failure: 0, lastAt: at, lastTraceId: traceId };
      this.#tallies.set(key, tally);
    }
    if (success) tally.success++;
    else tally.failure++;
    tally.lastAt = at;
    tally.lastTraceId = traceId;
    this.#recent.unshift({ at, upstream, name, outcome: success ? 'success' : 'failure', traceId });
    if (this.#recent.length > RECENT_CALLS) this.#recent.length = RECENT_CALLS;
  }

  /** Tallies by upstream, then name; the latest calls, newest first. */
  snapshot(): { since: string; calls: CallTally[]; recent: RecentCall[] } {
    const calls = [...this.#tallies.values()].map((t) => ({ ...t }))
      .sort((a, b) => a.upstream.localeCompare(b.upstream) || a.name.localeCompare(b.name));
    return { since: this.since, calls, recent: [...this.#recent] };
  }
}
