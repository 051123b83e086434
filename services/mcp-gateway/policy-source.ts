import { ruleViews, type Policy, type RuleView } from '../../core/gateway-policy/index.ts';

/** What reading the policy file again gives: the new policy, or why the file is refused (naming the rule). */
export type PolicyRead = { ok: true; policy: Policy } | { ok: false; message: string };

export type Reloaded = { ok: true; version: string; previous: string; loadedAt: string } | { ok: false; message: string; version: string };

export interface PolicyView {
  readonly version: string;
  readonly loadedAt: string;
  readonly rules: Array<RuleView & { readonly hits: number }>;
}

/**
 * The gateway's policy in force, reloadable without a restart (SIGHUP, `POST /mcp/policy/reload`):
 * a new file is read and checked whole, and replaces the old one only when every rule is good; a bad
 * one is refused with the rule named and the old policy stays. Each call reads `policy` once, so a
 * call is decided by one version from start to end. Hit counts are per rule of the version in force,
 * counted in this process since it was loaded.
 */
export class PolicySource {
  #policy: Policy;
  #loadedAt = new Date();
  #hits: number[];
  readonly #read: () => PolicyRead;
  #evaluations = 0;
  #evaluationSeconds = 0;

  constructor(initial: Policy, read: () => PolicyRead) {
    this.#policy = initial;
    this.#read = read;
    this.#hits = this.#zeroes(initial);
  }

  get policy(): Policy {
    return this.#policy;
  }

  /** A rule of `version` decided a call (or charged its budget); a hit on a version since replaced is not counted. */
  hit(version: string, index: number): void {
    if (version === this.#policy.version && index < this.#hits.length) this.#hits[index] = (this.#hits[index] ?? 0) + 1;
  }

  /**
   * A call's rules (or its budgets: `calls` 0, the same call) were evaluated, taking `seconds`: on
   * `/metrics`, what the policy costs a call where it runs (a micro-benchmark's hot loop says less).
   */
  evaluated(seconds: number, calls = 1): void {
    this.#evaluations += calls;
    this.#evaluationSeconds += seconds;
  }

  /** Calls evaluated since start, and the seconds their evaluation took, every version alike. */
  get evaluations(): { readonly calls: number; readonly seconds: number } {
    return { calls: this.#evaluations, seconds: this.#evaluationSeconds };
  }

  reload(): Reloaded {
    const read = this.#read();
    if (!read.ok) return { ok: false, message: read.message, version: this.#policy.version };
    const previous = this.#policy.version;
    // The same bytes again: the same version, and its counts go on.
    if (read.policy.version !== previous) {
      this.#policy = read.policy;
      this.#loadedAt = new Date();
      this.#hits = this.#zeroes(read.policy);
    }
    return { ok: true, version: this.#policy.version, previous, loadedAt: this.#loadedAt.toISOString() };
  }

  view(): PolicyView {
    return {
      version: this.#policy.version,
      loadedAt: this.#loadedAt.toISOString(),
      rules: ruleViews(this.#policy).map((r) => ({ ...r, hits: this.#hits[r.index] ?? 0 })),
    };
  }

  #zeroes(p: Policy): number[] {
    return new Array<number>(p.rules.length + p.budgets.length).fill(0);
  }
}
