/**
 * `suite verify --log URL`: the fsck of a running suite's transparency log (core/tlog fsckLog),
 * reading what the log serves over HTTP, as any outside auditor would: the signed checkpoint, every
 * hash tile, with a token the entry bundles and the chain's head, and consistency proofs from
 * checkpoints kept earlier (`--since FILE`). Also the chaos tests' check (testing/log-fsck.ts).
 */
import {
  fsckLog,
  logPaths,
  openCheckpoint,
  type Checkpoint,
  type CheckpointPolicy,
  type FsckReport,
  type LogSource,
  type TileRef,
} from '../core/tlog/index.ts';

export interface ServedLogOptions {
  /** The token listener's base URL, e.g. http://127.0.0.1:8081. */
  base: string;
  /** Opens the checkpoints: the log's key and origin (and witnesses). */
  policy: CheckpointPolicy;
  /** A token with execution:read (not a tenant's): entry bundles are checked and the chain head compared. */
  token?: string | undefined;
  /** Signed checkpoints kept from earlier: each must be a prefix of the tree now. */
  since?: readonly string[];
  /** How long to wait for a checkpoint to cover the chain's head (the log publishes one within a second of a commit). */
  waitMs?: number;
  timeoutMs?: number;
}

export interface ServedLogResult {
  report: FsckReport;
  /** The chain's head seq as read before and after the checkpoint (equal when no record arrived meanwhile). */
  chainHead?: { before: number; after: number };
  /** The checkpoint checked (signed note). */
  note: string;
}

/** Reads the log's parts over HTTP. A read that fails throws, naming the path and the answer. */
export function httpLogSource(base: string, token?: string, timeoutMs = 30_000): LogSource {
  const get = async (path: string, auth: boolean): Promise<Response> =>
    fetch(`${base}${path}`, { headers: auth && token !== undefined ? { authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(timeoutMs) });
  const bytes = async (path: string, res: Response): Promise<Uint8Array> => {
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    return new Uint8Array(await res.arrayBuffer());
  };
  const source: LogSource = {
    tile: async (ref: TileRef) => {
      const path = logPaths.tile(ref);
      return bytes(path, await get(path, false));
    },
    consistency: async (from: number, to: number) => {
      const path = logPaths.consistency(from, to);
      const res = await get(path, false);
      if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
      const body = (await res.json()) as { proof?: unknown };
      if (!Array.isArray(body.proof) || !body.proof.every((p) => typeof p === 'string')) throw new Error(`GET ${path}: not a consistency proof`);
      return body.proof.map((p: string) => Buffer.from(p, 'base64'));
    },
  };
  if (token === undefined) return source;
  return {
    ...source,
    entries: async (ref: TileRef) => {
      const path = logPaths.tile(ref);
      const res = await get(path, true);
      // Pruned under retention: the leaves stay, the entries are gone by design (docs/TRACE-FORMAT.md, "Retention").
      if (res.status === 404) {
        const text = await res.text();
        if (text.includes('pruned under retention')) return undefined;
        throw new Error(`GET ${path} answered 404: ${text.slice(0, 300)}`);
      }
      return bytes(path, res);
    },
  };
}

/** The newest record's seq (0 for an empty chain), with a token that reads every tenant's records. */
async function chainHead(base: string, token: string, timeoutMs: number): Promise<number> {
  const res = await fetch(`${base}/executions?limit=1`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(timeoutMs) });
  if (res.status !== 200) throw new Error(`GET /executions?limit=1 answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  const body = (await res.json()) as { records?: Array<{ seq?: unknown }> };
  const seq = body.records?.[0]?.seq;
  return typeof seq === 'number' ? seq : 0;
}

async function latestCheckpoint(base: string, policy: CheckpointPolicy, timeoutMs: number): Promise<{ note: string; checkpoint: Checkpoint }> {
  const res = await fetch(`${base}${logPaths.checkpoint}`, { signal: AbortSignal.timeout(timeoutMs) });
  const note = await res.text();
  if (res.status !== 200) throw new Error(`GET ${logPaths.checkpoint} answered ${res.status}: ${note.slice(0, 300)}`);
  const opened = openCheckpoint(note, policy);
  if (typeof opened === 'string') throw new Error(`the served checkpoint does not open: ${opened}`);
  return { note, checkpoint: opened.checkpoint };
}

/**
 * The fsck of a served log. With a token, the chain's head is read first and the checkpoint awaited
 * until it covers it (up to `waitMs`); the head is read again after: when no record arrived between,
 * the checkpoint's size must be the head exactly; on a live log it must lie between the two reads.
 */
export async function fsckServedLog(o: ServedLogOptions): Promise<ServedLogResult> {
  const timeoutMs = o.timeoutMs ?? 30_000;
  const problems: string[] = [];
  const earlier: Checkpoint[] = [];
  for (const [i, note] of (o.since ?? []).entries()) {
    const opened = openCheckpoint(note, o.policy);
    if (typeof opened === 'string') problems.push(`earlier checkpoint ${i + 1} does not open: ${opened}`);
    else earlier.push(opened.checkpoint);
  }
  let before: number | undefined;
  let latest = await latestCheckpoint(o.base, o.policy, timeoutMs);
  if (o.token !== undefined) {
    before = await chainHead(o.base, o.token, timeoutMs);
    const deadline = Date.now() + (o.waitMs ?? 10_000);
    // A new checkpoint follows a commit within about a second (docs/TRACE-FORMAT.md): poll for it.
    while (latest.checkpoint.size < before && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      latest = await latestCheckpoint(o.base, o.policy, timeoutMs);
    }
  }
  const after = o.token !== undefined ? await chainHead(o.base, o.token, timeoutMs) : undefined;
  const size = latest.checkpoint.size;
  const quiet = before !== undefined && before === after;
  if (before !== undefined && after !== undefined && !quiet && (size < before || size > after)) {
    problems.push(`the checkpoint's size ${size} is outside the chain's head as read before (${before}) and after (${after}) it`);
  }
  let report: FsckReport;
  try {
    report = await fsckLog({
      checkpoint: latest.checkpoint,
      ...(quiet ? { chainHead: before } : {}),
      earlier,
      source: httpLogSource(o.base, o.token, timeoutMs),
    });
  } catch (e) {
    report = { ok: false, problems: [`the log could not be read: ${(e as Error).message}`], size, tiles: 0, entries: 0, unreadBundles: 0, consistentWith: [] };
  }
  report.problems.unshift(...problems);
  report.ok = report.problems.length === 0;
  return { report, note: latest.note, ...(before !== undefined && after !== undefined ? { chainHead: { before, after } } : {}) };
}

/** The report in lines for an operator. */
export function describeFsck(r: ServedLogResult): string {
  const { report } = r;
  const lines = [
    `${report.ok ? 'verified' : 'NOT verified'}: the log at size ${report.size}: ${report.tiles} hash tile(s) read, the root rebuilt from them` +
      `${report.entries > 0 ? `, ${report.entries} entries checked against their leaves` : ''}`,
  ];
  if (r.chainHead) {
    lines.push(
      r.chainHead.before === r.chainHead.after
        ? `chain head: seq ${r.chainHead.before}`
        : `chain head: moved from seq ${r.chainHead.before} to ${r.chainHead.after} while checking (records arriving); the checkpoint lies between`,
    );
  } else lines.push('chain head: not compared (give --token with execution:read)');
  if (report.unreadBundles > 0) lines.push(`${report.unreadBundles} entry bundle(s) pruned under retention: their leaves checked, not their entries`);
  if (report.consistentWith.length > 0) lines.push(`consistent with the earlier checkpoint(s) of size ${report.consistentWith.join(', ')}`);
  for (const p of report.problems) lines.push(`problem: ${p}`);
  return `${lines.join('\n')}\n`;
}
