import { cosignatureVerifier } from './cosignature.ts';
import { ed25519NoteVerifier, parseVkey, SIG_COSIGNATURE_V1, SIG_ED25519 } from './note.ts';
import type { CheckpointPolicy } from './signed-checkpoint.ts';

export interface PolicyKeys {
  /** The log's vkey (GET /executions/log/vkey): its name is the log's origin. */
  logVkey: string;
  /** Witnesses' cosignature vkeys (type 0x04). */
  witnessVkeys?: readonly string[];
  /** Distinct witnesses that must have cosigned (default 0). */
  quorum?: number;
}

/**
 * What a verifier trusts a checkpoint by, from public keys as text (suite verify, the client
 * library, the dashboard): the log's Ed25519 note key, which names the origin, the witnesses'
 * cosignature keys and a quorum no larger than their number. A reason in words when a key is not one.
 */
export function checkpointPolicyOf(k: PolicyKeys): CheckpointPolicy | string {
  const log = parseVkey(k.logVkey.trim());
  if (typeof log === 'string') return `log vkey: ${log}`;
  if (log.type !== SIG_ED25519) return 'log vkey: not an Ed25519 note key (type 0x01)';
  const witnesses = [];
  for (const text of k.witnessVkeys ?? []) {
    const w = parseVkey(text.trim());
    if (typeof w === 'string') return `witness vkey ${text}: ${w}`;
    if (w.type !== SIG_COSIGNATURE_V1) return `witness vkey ${text}: not a cosignature/v1 key (type 0x04)`;
    witnesses.push(cosignatureVerifier(w.name, w.publicKey));
  }
  const quorum = k.quorum ?? 0;
  if (!Number.isSafeInteger(quorum) || quorum < 0) return 'a quorum is a whole number of witnesses';
  if (quorum > witnesses.length) return `a quorum of ${quorum} needs at least that many witness vkeys`;
  return { log: ed25519NoteVerifier(log.name, log.publicKey), origin: log.name, witnesses, quorum };
}
