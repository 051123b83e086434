import type { CommonQueryMethods } from 'slonik';
import { DPOP_IAT_WINDOW_SECONDS, verifyDpopProofContent, type DpopCheck } from '../../core/oauth/index.ts';
import { firstUseOfJti } from './replay.ts';

export type DpopResult = { ok: true; jkt: string } | { ok: false; problem: string };

/** A DPoP proof at the token endpoint: its content (core/oauth), then its `jti` never seen for this key, durably (every replica). */
export async function verifyDpopProof(db: CommonQueryMethods, proof: string, check: DpopCheck): Promise<DpopResult> {
  const content = await verifyDpopProofContent(proof, check);
  if (!content.ok) return content;
  if (!(await firstUseOfJti(db, `dpop:${content.jkt}`, content.jti, content.iat + 2 * DPOP_IAT_WINDOW_SECONDS))) {
    return { ok: false, problem: 'the DPoP proof was already used (jti replay)' };
  }
  return { ok: true, jkt: content.jkt };
}
