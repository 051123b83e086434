import type { CommonQueryMethods } from 'slonik';
import type { ErrorData } from '../../../bus/index.ts';
import { consumeNonce, findIdentity, lockSubject } from '../../../storage/index.ts';
import { proofSignatureVerifies } from './public-key.ts';

export interface Proof {
  nonce: string;
  signature: string;
}

/** Proven: the token gets claim `prf`. A refusal changed nothing and is thrown by the caller. */
export type IssuanceVerdict = { ok: true; proven: boolean } | { ok: false; error: ErrorData };

/**
 * The identity's say in issuing a token for `sub` (spec, Authentication rule 7), run inside the
 * transaction that records the issued token. Refuses with PROOF_REQUIRED (401), IDENTITY_SUSPENDED
 * (403) or INVALID_REQUEST. Refusals are returned, not thrown: slonik destroys the connection when a
 * transaction handler throws, and on PGlite (one connection) the transactions queued behind it then
 * fail; an expected refusal must not cost that. Nothing is written before the last step, so
 * committing a refused transaction commits nothing.
 *
 * Order matters:
 * - The subject lock comes first and alone in its statement: under READ COMMITTED each statement
 *   reads the data committed when it starts, so the identity is read only after any suspension or
 *   enrolment that held the lock has committed. A suspension, in turn, waits for this transaction
 *   and so finds the token this issuance inserts (storage/identities.ts, lockSubject).
 * - The signature is checked before the nonce is consumed, so a wrong signature does not use up a
 *   nonce; the consuming delete is the last step, and a rollback afterwards restores the nonce.
 * - A suspended identity is refused before its proof is looked at: nothing is consumed.
 */
export async function proveIssuance(tx: CommonQueryMethods, sub: string, proof: Proof | undefined): Promise<IssuanceVerdict> {
  await lockSubject(tx, sub, 'shared');
  const identity = await findIdentity(tx, sub);
  if (identity === null) {
    if (proof !== undefined) return refuse('INVALID_REQUEST', `proof is accepted only for an enrolled identity, and "${sub}" is not enrolled`);
    return { ok: true, proven: false };
  }
  if (identity.status === 'suspended') {
    return refuse('IDENTITY_SUSPENDED', `identity "${sub}" is suspended; no new tokens are issued in its name`);
  }
  if (proof === undefined) {
    return refuse(
      'PROOF_REQUIRED',
      `"${sub}" is an enrolled identity: get a nonce from POST /identities/{subject}/challenge and send proof {nonce, signature}`,
    );
  }
  if (!proofSignatureVerifies(identity.publicKeyPem, proof.nonce, proof.signature)) {
    return refuse(
      'PROOF_REQUIRED',
      "proof signature does not verify against the key enrolled for this subject (base64 Ed25519 signature of the nonce's UTF-8 bytes expected)",
    );
  }
  if (!(await consumeNonce(tx, { nonce: proof.nonce, subject: sub }))) {
    return refuse('PROOF_REQUIRED', 'proof nonce is unknown, expired, already used, or was issued for another subject; request a new challenge');
  }
  return { ok: true, proven: true };
}

function refuse(code: ErrorData['code'], message: string): IssuanceVerdict {
  return { ok: false, error: { code, message } };
}
