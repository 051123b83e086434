import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CompactTree,
  cosignatureTime,
  cosignatureVerifier,
  ed25519Cosigner,
  ed25519NoteSigner,
  ed25519NoteVerifier,
  ed25519PrivateKeyFromSeed,
  formatCheckpoint,
  formatVkey,
  leafHash,
  openCheckpoint,
  openNote,
  parseCheckpoint,
  parseNote,
  parseVkey,
  signNote,
  signatureLine,
  SIG_ED25519,
  rawEd25519PublicKey,
} from './index.ts';
import { createPublicKey } from 'node:crypto';

// golang.org/x/mod sumdb/note/note_test.go (BSD-3-Clause): a published key pair and the signature it
// makes over a fixed text. The private key is `PRIVATE+KEY+PeterNeumann+c74f20a3+` then base64(0x01 || seed).
const PETER_VKEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const PETER_SEED = Buffer.from('AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz', 'base64').subarray(1);
const ENOCH_VKEY = 'EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop';
const TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const PETER_SIG = '— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n';
const ENOCH_SIG = '— EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n';

function verifierOf(vkey: string) {
  const k = parseVkey(vkey);
  if (typeof k === 'string') throw new Error(k);
  return ed25519NoteVerifier(k.name, k.publicKey);
}

describe('signed notes against the Go sumdb vectors', () => {
  it('the published private key signs the published text into the published note, byte for byte', () => {
    const signer = ed25519NoteSigner('PeterNeumann', ed25519PrivateKeyFromSeed(PETER_SEED));
    expect(signer.keyId).toBe('c74f20a3');
    expect(signNote(TEXT, [signer])).toBe(`${TEXT}\n${PETER_SIG}`);
    expect(formatVkey('PeterNeumann', SIG_ED25519, rawEd25519PublicKey(createPublicKey(ed25519PrivateKeyFromSeed(PETER_SEED))))).toBe(PETER_VKEY);
  });

  it('a note with a known and an unknown signature opens by the known key only', () => {
    const opened = openNote(`${TEXT}\n${PETER_SIG}${ENOCH_SIG}`, [verifierOf(PETER_VKEY)]);
    expect(typeof opened === 'string' ? opened : opened.verifiedBy).toEqual(['PeterNeumann']);
    const both = openNote(`${TEXT}\n${PETER_SIG}${ENOCH_SIG}`, [verifierOf(PETER_VKEY), verifierOf(ENOCH_VKEY)]);
    expect(typeof both === 'string' ? both : both.verifiedBy).toEqual(['PeterNeumann', 'EnochRoot']);
  });

  it('a note signed by no known key, a bad known signature or a malformed note is refused', () => {
    expect(openNote(`${TEXT}\n${PETER_SIG}`, [verifierOf(ENOCH_VKEY)])).toBe('no signature by a known key');
    const bad = `${TEXT}\n${PETER_SIG.slice(0, 60)}ABCD${PETER_SIG.slice(60)}`;
    expect(openNote(bad, [verifierOf(PETER_VKEY)])).toMatch(/does not verify|base64/);
    const edited = `${TEXT.replace('answer', 'question')}\n${PETER_SIG}`;
    expect(openNote(edited, [verifierOf(PETER_VKEY)])).toMatch(/does not verify/);
    for (const m of [
      TEXT,
      `${TEXT}\n`,
      `${TEXT}\n${PETER_SIG.slice(0, -1)}`,
      `\x01${TEXT}\n${PETER_SIG}`,
      `${TEXT}\n— Bad Name x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`,
      `${TEXT}\n${PETER_SIG}Unexpected line.\n`,
    ]) {
      expect(typeof parseNote(m) === 'string' || typeof openNote(m, [verifierOf(PETER_VKEY)]) === 'string', JSON.stringify(m)).toBe(true);
    }
  });

  it('a vkey is refused when cut, altered, of another algorithm or of the wrong length', () => {
    expect(typeof parseVkey(PETER_VKEY)).toBe('object');
    for (let i = 1; i < PETER_VKEY.length; i += 5) expect(typeof parseVkey(PETER_VKEY.slice(0, i)), PETER_VKEY.slice(0, i)).toBe('string');
    for (let i = 0; i < PETER_VKEY.length; i += 1) {
      const c = PETER_VKEY.charCodeAt(i);
      const altered = PETER_VKEY.slice(0, i) + String.fromCharCode(c + 1) + PETER_VKEY.slice(i + 1);
      expect(typeof parseVkey(altered), altered).toBe('string');
    }
    expect(typeof parseVkey('PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY==')).toBe('string');
    expect(typeof parseVkey('PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW')).toBe('string');
  });

  it('a vkey whose base64 key holds "+" parses (only the first two "+" separate fields)', () => {
    for (let i = 0; i < 50; i += 1) {
      const raw = rawEd25519PublicKey(createPublicKey(generateKeyPairSync('ed25519').privateKey));
      const vkey = formatVkey('log.test/a', SIG_ED25519, raw);
      const parsed = parseVkey(vkey);
      expect(typeof parsed === 'string' ? parsed : parsed.publicKey.equals(raw), vkey).toBe(true);
    }
  });
});

// C2SP tlog-checkpoint and tlog-cosignature: the published example checkpoint and its signature lines.
const C2SP_CHECKPOINT = 'example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n';
const C2SP_COSIGNED = `${C2SP_CHECKPOINT}\n— example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n— witness.example.com/w1 jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==\n`;

describe('checkpoints and cosignatures', () => {
  it('the C2SP example checkpoint parses, and its cosignature line carries a 72-byte timestamped signature', () => {
    const note = parseNote(C2SP_COSIGNED);
    if (typeof note === 'string') throw new Error(note);
    const cp = parseCheckpoint(note.text);
    if (typeof cp === 'string') throw new Error(cp);
    expect(cp).toMatchObject({ origin: 'example.com/behind-the-sofa', size: 20852163, extensions: [] });
    expect(formatCheckpoint(cp)).toBe(C2SP_CHECKPOINT);
    const witness = note.signatures[1];
    expect(witness?.name).toBe('witness.example.com/w1');
    expect(witness?.signature.length).toBe(72);
    // tlog-cosignature's example message says "time 1679315147".
    expect(cosignatureTime(witness?.signature as Buffer)).toBe(1679315147);
  });

  it('malformed checkpoints are refused: leading zeroes, a short root, a missing line, an empty extension', () => {
    for (const t of [
      'o\n012\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n',
      'o\n12\nCsUYapGG\n',
      'o\n12\n',
      'o\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n\n',
      '\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n',
      'o\n-1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n',
    ]) {
      expect(typeof parseCheckpoint(t), JSON.stringify(t)).toBe('string');
    }
  });

  const logKey = generateKeyPairSync('ed25519').privateKey;
  const otherKey = generateKeyPairSync('ed25519').privateKey;
  const origin = 'suite.test/executions';
  const log = ed25519NoteSigner(origin, logKey);
  const logVerifier = ed25519NoteVerifier(origin, rawEd25519PublicKey(createPublicKey(logKey)));
  const w1 = ed25519Cosigner('witness.test/w1', generateKeyPairSync('ed25519').privateKey);
  const w2 = ed25519Cosigner('witness.test/w2', generateKeyPairSync('ed25519').privateKey);
  const witnesses = [cosignatureVerifier(w1.name, w1.publicKey), cosignatureVerifier(w2.name, w2.publicKey)];
  const tree = new CompactTree();
  tree.append(leafHash(Buffer.from('a')));
  const text = formatCheckpoint({ origin, size: 1, root: tree.root(), extensions: [] });
  tree.append(leafHash(Buffer.from('b')));
  const text2 = formatCheckpoint({ origin, size: 2, root: tree.root(), extensions: [] });

  it('a checkpoint signed by the log and cosigned by a quorum of witnesses opens', () => {
    const signed = signNote(text, [log], [w1.cosign(text, 1700000000), w2.cosign(text, 1700000001)]);
    const opened = openCheckpoint(signed, { log: logVerifier, origin, witnesses, quorum: 2 });
    expect(typeof opened === 'string' ? opened : opened.cosignedBy).toEqual(['witness.test/w1', 'witness.test/w2']);
  });

  it('a checkpoint signed by another key, for another origin, or short of the quorum is refused', () => {
    const byOther = signNote(text, [ed25519NoteSigner(origin, otherKey)]);
    expect(openCheckpoint(byOther, { log: logVerifier, origin })).toMatch(/does not verify|no signature by a known key/);
    const otherOrigin = formatCheckpoint({ origin: 'elsewhere.test/log', size: 1, root: tree.root(), extensions: [] });
    expect(openCheckpoint(signNote(otherOrigin, [ed25519NoteSigner(origin, logKey)]), { log: logVerifier, origin })).toMatch(/not of/);
    const one = signNote(text, [log], [w1.cosign(text, 1700000000)]);
    expect(openCheckpoint(one, { log: logVerifier, origin, witnesses, quorum: 2 })).toMatch(/1 known witness\(es\), 2 required/);
  });

  it('a cosignature over another checkpoint, or with its time altered, does not verify', () => {
    const moved = w1.cosign(text2, 1700000000);
    const spliced = signNote(text, [log]) + signatureLine(moved);
    expect(openCheckpoint(spliced, { log: logVerifier, origin, witnesses, quorum: 1 })).toMatch(/cosignature of witness.test\/w1 does not verify/);
    const c = w1.cosign(text, 1700000000);
    const retimed = Buffer.from(c.signature);
    retimed.writeBigUInt64BE(1700000001n, 0);
    const forged = signNote(text, [log]) + signatureLine({ ...c, signature: retimed });
    expect(openCheckpoint(forged, { log: logVerifier, origin, witnesses, quorum: 1 })).toMatch(/does not verify/);
  });
});
