/** What the index needs of a rule: its place in the file, its server, and its tool as written and as a pattern. */
export interface Placed {
  readonly index: number;
  readonly server: string;
  readonly tool: RegExp;
  readonly source: { readonly tool: string };
}

const GLOB_CHARS = /[*?]/;

/** Tool names whose candidates are kept; past it the cache starts afresh (a gateway's tools are its upstreams' catalogue: far fewer). */
const MAX_KEPT = 4096;

/**
 * A policy's rules by the call they can match. For a call's server and tool, the candidates are the
 * rules of that server whose tool is that exact name or a glob matching it, in file order (the
 * exact rules and the matching globs merged by their place in the file), so first-match order is the
 * file's. They are worked out at a tool's first call and kept: a call tests no rule written for
 * another server or tool, and runs no glob pattern, however many rules the file has.
 */
export class RuleIndex<R extends Placed> {
  readonly #exact = new Map<string, Map<string, R[]>>();
  readonly #globs = new Map<string, R[]>();
  /** By `server/tool` (a server's name holds no `/`). */
  readonly #kept = new Map<string, readonly R[]>();

  constructor(rules: readonly R[]) {
    for (const r of rules) {
      if (GLOB_CHARS.test(r.source.tool)) {
        const list = this.#globs.get(r.server) ?? [];
        list.push(r);
        this.#globs.set(r.server, list);
      } else {
        const byTool = this.#exact.get(r.server) ?? new Map<string, R[]>();
        const list = byTool.get(r.source.tool) ?? [];
        list.push(r);
        byTool.set(r.source.tool, list);
        this.#exact.set(r.server, byTool);
      }
    }
  }

  /** The rules that can match a call of `tool` on `server`, in file order. */
  candidates(server: string, tool: string): readonly R[] {
    const key = `${server}/${tool}`;
    const kept = this.#kept.get(key);
    if (kept !== undefined) return kept;
    const exact = this.#exact.get(server)?.get(tool) ?? [];
    const globs = (this.#globs.get(server) ?? []).filter((r) => r.tool.test(tool));
    const merged = mergeByIndex(exact, globs);
    if (this.#kept.size >= MAX_KEPT) this.#kept.clear();
    this.#kept.set(key, merged);
    return merged;
  }
}

/** Two lists each in file order, as one in file order. */
function mergeByIndex<R extends Placed>(a: readonly R[], b: readonly R[]): readonly R[] {
  if (b.length === 0) return a;
  if (a.length === 0) return b;
  const out: R[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push((a[i] as R).index < (b[j] as R).index ? (a[i++] as R) : (b[j++] as R));
  while (i < a.length) out.push(a[i++] as R);
  while (j < b.length) out.push(b[j++] as R);
  return out;
}
