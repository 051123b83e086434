import { describe, expect, it } from 'vitest';
import vectors from '../../core/tlog/fixtures/transparency-dev-merkle.json';
import { verifyInclusionProof } from './receipt';
import { unbase64 } from './verify';

/**
 * The dashboard's WebCrypto inclusion verifier (a second RFC 9162 implementation: core/tlog uses
 * node:crypto, which a browser lacks) against the same published vectors core/tlog's is checked
 * against: transparency-dev/merkle testdata/inclusion (issue 35 item 9). Node's WebCrypto is the
 * browser's API, so the code under test is the code the page runs.
 */
interface InclusionVector {
  file: string;
  leafIdx: number;
  treeSize: number;
  root: string;
  leafHash: string;
  proof: string[] | null;
  wantErr: boolean;
}

const bytes = (s: string) => {
  const b = unbase64(s);
  if (b === null) throw new Error(`not base64: ${s}`);
  return b;
};

describe("the dashboard's inclusion verifier against the transparency-dev vectors", () => {
  it('every published inclusion vector verifies or fails exactly as published', async () => {
    const inclusion = (vectors as { inclusion: InclusionVector[] }).inclusion;
    expect(inclusion.length).toBeGreaterThan(90);
    const wrong: string[] = [];
    for (const v of inclusion) {
      const ok = await verifyInclusionProof(v.leafIdx, v.treeSize, bytes(v.leafHash), (v.proof ?? []).map(bytes), bytes(v.root));
      if (ok === v.wantErr) wrong.push(`${v.file}: ${ok ? 'verified' : 'refused'}`);
    }
    expect(wrong).toEqual([]);
  });
});
