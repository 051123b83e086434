import { parseCheckpoint, type Checkpoint } from './checkpoint.ts';
import { openNote, parseNote, type NoteVerifier } from './note.ts';

export interface TrustedCheckpoint {
  checkpoint: Checkpoint;
  /** The note text that was signed (what a witness cosigns). */
  text: string;
  /** Names of the witnesses whose cosignatures verified. */
  cosignedBy: string[];
}

export interface CheckpointPolicy {
  /** The log's key (an Ed25519 note verifier): it must have signed. */
  log: NoteVerifier;
  /** The origin the log is known by: a checkpoint of another log is refused. */
  origin: string;
  /** Witness cosignature verifiers. */
  witnesses?: readonly NoteVerifier[];
  /** How many distinct witnesses must have cosigned (default 0). */
  quorum?: number;
}

/**
 * Open a signed checkpoint the way a client must before trusting an inclusion proof against it:
 * the log's signature, the right origin, and a quorum of witness cosignatures (which is what
 * rules out a split view: a witness never cosigns two inconsistent trees).
 */
export function openCheckpoint(message: string, policy: CheckpointPolicy): TrustedCheckpoint | string {
  const witnesses = policy.witnesses ?? [];
  const byLog = openNote(message, [policy.log]);
  if (typeof byLog === 'string') return `checkpoint: ${byLog}`;
  const checkpoint = parseCheckpoint(byLog.text);
  if (typeof checkpoint === 'string') return checkpoint;
  if (checkpoint.origin !== policy.origin) return `checkpoint of "${checkpoint.origin}", not of "${policy.origin}"`;
  const cosignedBy: string[] = [];
  if (witnesses.length > 0) {
    const note = parseNote(message);
    if (typeof note === 'string') return note;
    const bytes = Buffer.from(note.text);
    for (const s of note.signatures) {
      const w = witnesses.find((v) => v.name === s.name && v.keyId === s.keyId);
      if (!w) continue;
      // A known witness's signature that fails refuses the whole note (signed-note "Signatures").
      if (!w.verify(bytes, s.signature)) return `the cosignature of ${s.name} does not verify`;
      if (!cosignedBy.includes(w.name)) cosignedBy.push(w.name);
    }
  }
  const quorum = policy.quorum ?? 0;
  if (cosignedBy.length < quorum) return `cosigned by ${cosignedBy.length} known witness(es), ${quorum} required`;
  return { checkpoint, text: byLog.text, cosignedBy };
}
