import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { leafHash, leafHashOfText, nodeHash } from './index.ts';

describe('RFC 6962 leaf and node hashes', () => {
  it('the leaf hash of an entry as text is the leaf hash of its UTF-8 bytes, for any text', () => {
    for (const text of ['', 'a', 'ascii export line {"k":1}', 'é ü 中文 😀', 'a lone \ud800 surrogate', '\0 nul inside', 'x'.repeat(70_000)]) {
      expect(leafHashOfText(text), JSON.stringify(text.slice(0, 20))).toEqual(leafHash(Buffer.from(text)));
      expect(leafHashOfText(text)).toEqual(
        createHash('sha256')
          .update(Buffer.from([0]))
          .update(Buffer.from(text))
          .digest(),
      );
    }
  });

  it('a node hash is SHA-256 of 0x01 and both children, whatever was hashed before it', () => {
    const l = createHash('sha256').update('left').digest();
    const r = createHash('sha256').update('right').digest();
    const expected = createHash('sha256')
      .update(Buffer.concat([Buffer.from([1]), l, r]))
      .digest();
    const first = nodeHash(l, r);
    nodeHash(r, l);
    expect(first).toEqual(expected);
    expect(nodeHash(l, r)).toEqual(expected);
    // Not 32 bytes (a caller's mistake): still the definition, never a reused buffer's leftovers.
    expect(nodeHash(Buffer.from('ab'), r)).toEqual(
      createHash('sha256')
        .update(Buffer.concat([Buffer.from([1]), Buffer.from('ab'), r]))
        .digest(),
    );
  });
});
