import { parseCheckpoint, type Checkpoint } from './checkpoint.ts';
import { EMPTY_ROOT, sameHash } from './hash.ts';
import { openNote, signatureLine, strictBase64, type NoteVerifier } from './note.ts';
import { verifyConsistency } from './proof.ts';
import type { Cosigner } from './cosignature.ts';

/**
 * C2SP tlog-witness `add-checkpoint`, decided purely: the caller holds the witness's durable state
 * (the latest cosigned size and root per origin), applies the decision's `next` atomically and
 * persists it before answering, and keeps `evidence` (a validly signed checkpoint inconsistent
 * with one already cosigned: a split view) for good.
 */
export interface AddCheckpointRequest {
  oldSize: number;
  proof: Buffer[];
  note: string;
}

/** Parse the request body: `old <N>\n`, up to 63 base64 proof lines, an empty line, the checkpoint note. */
export function parseAddCheckpoint(body: string): AddCheckpointRequest | string {
  const blank = body.indexOf('\n\n');
  if (blank < 0) return 'the body is "old <size>", proof lines, an empty line, then the checkpoint';
  const head = body.slice(0, blank).split('\n');
  const m = /^old (0|[1-9][0-9]*)$/.exec(head[0] ?? '');
  if (!m || !Number.isSafeInteger(Number(m[1]))) return 'the first line is "old <size>"';
  const lines = head.slice(1);
  if (lines.length > 63) return 'more than 63 consistency proof lines';
  const proof: Buffer[] = [];
  for (const l of lines) {
    const h = strictBase64(l);
    if (h?.length !== 32) return 'a consistency proof line is one base64 SHA-256 hash';
    proof.push(h);
  }
  return { oldSize: Number(m[1]), proof, note: body.slice(blank + 2) };
}

export interface WitnessedLog {
  size: number;
  /** Root of the latest cosigned checkpoint, base64. */
  root: string;
}

export interface WitnessDecision {
  status: 200 | 400 | 403 | 404 | 409 | 422;
  /** 200: the cosignature lines; 409 on a size mismatch: the known size and a newline; else a reason. */
  body: string;
  contentType: string;
  /** The state to persist (before answering) when the checkpoint is cosigned. */
  next?: { origin: string; log: WitnessedLog };
  /** A validly signed checkpoint that contradicts one already cosigned: keep it. */
  evidence?: { origin: string; note: string; reason: string };
}

export interface WitnessPolicy {
  /** The logs this witness follows: origin → the log's note verifiers. */
  logs: ReadonlyMap<string, readonly NoteVerifier[]>;
  cosigner: Cosigner;
}

export function addCheckpoint(
  request: AddCheckpointRequest,
  known: (origin: string) => WitnessedLog | undefined,
  policy: WitnessPolicy,
  nowSeconds: number,
): WitnessDecision {
  const text = (reason: string, status: WitnessDecision['status']): WitnessDecision => ({
    status,
    body: `${reason}\n`,
    contentType: 'text/plain; charset=utf-8',
  });
  const origin = request.note.slice(0, request.note.indexOf('\n'));
  const verifiers = policy.logs.get(origin);
  if (!verifiers) return text('unknown log origin', 404);
  const opened = openNote(request.note, verifiers);
  if (typeof opened === 'string') return text(`checkpoint not signed by the log: ${opened}`, 403);
  const cp: Checkpoint | string = parseCheckpoint(opened.text);
  if (typeof cp === 'string') return text(cp, 400);
  if (request.oldSize > cp.size) return text('old size is larger than the checkpoint size', 400);
  const last = known(origin) ?? { size: 0, root: '' };
  if (request.oldSize !== last.size) return { status: 409, body: `${last.size}\n`, contentType: 'text/x.tlog.size' };
  // The tree of size 0 has one root by definition (RFC 6962: SHA-256 of the empty string), so a
  // signed size-0 checkpoint with any other root contradicts the log as surely as a split view.
  if (cp.size === 0 && !sameHash(cp.root, EMPTY_ROOT)) {
    return {
      ...text('a tree of size 0 has the empty root', 409),
      evidence: {
        origin,
        note: request.note,
        reason: `split view: size 0 with root ${cp.root.toString('base64')}, not the empty tree's ${EMPTY_ROOT.toString('base64')}`,
      },
    };
  }
  const lastRoot = last.size > 0 ? Buffer.from(last.root, 'base64') : undefined;
  if (last.size === cp.size && lastRoot && !sameHash(lastRoot, cp.root)) {
    return {
      ...text('a different root for a size already cosigned', 409),
      evidence: { origin, note: request.note, reason: `split view: size ${cp.size} cosigned with root ${last.root}` },
    };
  }
  if (last.size > 0 && last.size < cp.size) {
    if (!verifyConsistency(last.size, cp.size, request.proof, lastRoot as Buffer, cp.root)) {
      return {
        ...text('the consistency proof does not verify', 422),
        evidence: { origin, note: request.note, reason: `not shown consistent with size ${last.size} root ${last.root}` },
      };
    }
  } else if (request.proof.length > 0) {
    return text('the proof must be empty from size 0 or to the same size', 422);
  }
  const line = signatureLine(policy.cosigner.cosign(opened.text, nowSeconds));
  return { status: 200, body: line, contentType: 'text/plain; charset=utf-8', next: { origin, log: { size: cp.size, root: cp.root.toString('base64') } } };
}
