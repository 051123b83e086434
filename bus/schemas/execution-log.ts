import { Type } from 'typebox';
import { ExecutionId, ExecutionRecordSchema } from './executions.ts';

/**
 * The execution chain as a transparency log (docs/TRACE-FORMAT.md, "The transparency log"): its
 * reads cross the bus to any reader replica (queue `executions`). Hashes travel as base64, as in
 * C2SP checkpoints; tiles and entry bundles as base64 of their bytes.
 */
const Size = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
const Hash64 = Type.String({ pattern: '^[A-Za-z0-9+/]{43}=$', description: 'a SHA-256 hash, base64' });

export const LogCheckpointRequest = Type.Object({}, { additionalProperties: false });
export const LogCheckpointReply = Type.Object({
  /** The signed checkpoint note, with every witness cosignature collected so far. */
  note: Type.String(),
  size: Size,
});

export const LogVkeyRequest = Type.Object({}, { additionalProperties: false });
export const LogVkeyReply = Type.Object({
  /** The note verifier key of the log (C2SP signed-note vkey). */
  vkey: Type.String(),
  origin: Type.String(),
});

export const LogTileRequest = Type.Object(
  {
    /** A hash tile's level, or `entries` for an entry bundle. */
    level: Type.Union([Type.Integer({ minimum: 0, maximum: 63 }), Type.Literal('entries')]),
    index: Size,
    /** 256 for a full tile, 1 to 255 for a partial one. */
    width: Type.Integer({ minimum: 1, maximum: 256 }),
  },
  { additionalProperties: false },
);
export const LogTileReply = Type.Object({ bytes: Type.String({ contentEncoding: 'base64' }) });

export const LogProofRequest = Type.Object(
  {
    id: ExecutionId,
    /** The tree size to prove inclusion in; default: the latest checkpoint's. */
    size: Type.Optional(Size),
  },
  { additionalProperties: false },
);
export const LogProofReply = Type.Object({
  id: ExecutionId,
  /** The record's leaf: `seq - 1`. */
  leafIndex: Size,
  treeSize: Size,
  /** SHA-256(0x00 || the record's export line), base64. */
  leafHash: Hash64,
  /** RFC 6962 inclusion proof, leaf side first. */
  proof: Type.Array(Hash64),
  /** The signed checkpoint of exactly this size, when one was published. */
  checkpoint: Type.Optional(Type.String()),
});

export const LogConsistencyRequest = Type.Object({ from: Size, to: Size }, { additionalProperties: false });
export const LogConsistencyReply = Type.Object({ from: Size, to: Size, proof: Type.Array(Hash64) });

export const LogReceiptRequest = Type.Object({ id: ExecutionId }, { additionalProperties: false });
/**
 * An offline bundle: with the trace public key and the log's vkey (and witnesses' keys), it proves
 * the record is the log's leaf `leafIndex` under a signed, cosigned checkpoint. No network needed.
 */
export const LogReceiptReply = Type.Object({
  format: Type.Literal('execution-receipt/v1'),
  record: ExecutionRecordSchema,
  /** The record's log entry: its export line, `<hash> <signature> <signed bytes>`. */
  entry: Type.String(),
  leafIndex: Size,
  treeSize: Size,
  proof: Type.Array(Hash64),
  /** The signed checkpoint of `treeSize`, with its cosignatures. */
  checkpoint: Type.String(),
});
