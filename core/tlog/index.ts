/**
 * The execution chain as a transparency log (docs/TRACE-FORMAT.md, "The transparency log"): RFC 6962
 * hashing and proofs, C2SP tlog-tiles coordinates, signed notes, checkpoints and cosignatures.
 * Pure: no I/O.
 */
export { HASH_SIZE, EMPTY_ROOT, leafHash, leafHashOfText, nodeHash, sameHash, isTreeIndex } from './hash.ts';
export { CompactTree, foldRight, perfectRoot, rangeNodes, type TreeNode } from './tree.ts';
export {
  inclusionProof,
  consistencyProof,
  rangeHash,
  nodesRead,
  rootFromInclusionProof,
  verifyInclusion,
  verifyConsistency,
  type NodeReader,
  type NodeRef,
} from './proof.ts';
export {
  TILE_HEIGHT,
  TILE_WIDTH,
  MAX_TILE_LEVEL,
  tileWidthAt,
  tilesOfNodes,
  nodeReaderFromTiles,
  encodeEntryBundle,
  decodeEntryBundle,
  type TileRef,
} from './tiles.ts';
export { LOG_PREFIX, logPaths, tileIndexPath, tilePath, parseTilePath } from './layout.ts';
export {
  SIG_ED25519,
  SIG_COSIGNATURE_V1,
  noteKeyId,
  isKeyName,
  rawEd25519PublicKey,
  ed25519PublicKeyFromRaw,
  ed25519PrivateKeyFromSeed,
  ed25519NoteSigner,
  ed25519NoteVerifier,
  formatVkey,
  parseVkey,
  signNote,
  signatureLine,
  parseNote,
  openNote,
  strictBase64,
  type Note,
  type NoteSignature,
  type NoteSigner,
  type NoteVerifier,
  type OpenedNote,
  type Vkey,
} from './note.ts';
export { formatCheckpoint, parseCheckpoint, type Checkpoint } from './checkpoint.ts';
export { cosignedMessage, ed25519Cosigner, cosignatureTime, cosignatureVerifier, type Cosigner } from './cosignature.ts';
export { openCheckpoint, type TrustedCheckpoint, type CheckpointPolicy } from './signed-checkpoint.ts';
export { checkpointPolicyOf, type PolicyKeys } from './policy.ts';
export { logKey, type LogKey } from './log-key.ts';
export { parseAddCheckpoint, addCheckpoint, type AddCheckpointRequest, type WitnessDecision, type WitnessPolicy, type WitnessedLog } from './witness.ts';
export { TileNodeCache, type TileFetch } from './tile-cache.ts';
export { TreeRebuild, entryBundleProblems, fsckLog, type ExpectedTile, type FsckInput, type FsckReport, type LogSource } from './fsck.ts';
export { verifyReceipt, type ExecutionReceipt, type ReceiptVerification } from './receipt.ts';
