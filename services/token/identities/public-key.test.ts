import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseEd25519PublicKey, proofSignatureVerifies } from './public-key.ts';

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const pem = publicKey.export({ type: 'spki', format: 'pem' }) as string;

describe('parseEd25519PublicKey', () => {
  it('accepts an SPKI Ed25519 key whatever its line endings, and gives it one spelling', () => {
    const crlf = parseEd25519PublicKey(`\n${pem.replace(/\n/g, '\r\n')}  `);
    expect(crlf).toMatchObject({ ok: true, pem, keyId: expect.stringMatching(/^ed25519-[0-9a-f]{16}$/) });
  });

  it('refuses a certificate-like or labelled-otherwise block without deriving a key from it', () => {
    const relabelled = pem.replace(/PUBLIC KEY/g, 'CERTIFICATE');
    expect(parseEd25519PublicKey(relabelled)).toMatchObject({ ok: false, problem: expect.stringMatching(/publicKeyPem must be one PEM block/) });
  });

  it('never quotes the key it refuses', () => {
    const secret = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const result = parseEd25519PublicKey(secret);
    expect(result.ok).toBe(false);
    const body = secret.split('\n')[1]!;
    expect(JSON.stringify(result)).not.toContain(body.slice(0, 16));
  });
});

describe('proofSignatureVerifies', () => {
  const nonce = 'bm9uY2U';
  const signature = sign(null, Buffer.from(nonce, 'utf8'), privateKey);

  it('accepts the signature in base64, unpadded base64 and base64url', () => {
    expect(proofSignatureVerifies(pem, nonce, signature.toString('base64'))).toBe(true);
    expect(proofSignatureVerifies(pem, nonce, signature.toString('base64').replace(/=+$/, ''))).toBe(true);
    expect(proofSignatureVerifies(pem, nonce, signature.toString('base64url'))).toBe(true);
  });

  it('refuses a signature of the wrong length, with stray characters, or over other bytes', () => {
    expect(proofSignatureVerifies(pem, nonce, signature.subarray(0, 63).toString('base64'))).toBe(false);
    expect(proofSignatureVerifies(pem, nonce, `${signature.toString('base64')}AA`)).toBe(false);
    expect(proofSignatureVerifies(pem, nonce, `!${signature.toString('base64').slice(1)}`)).toBe(false);
    expect(proofSignatureVerifies(pem, `${nonce}.`, signature.toString('base64'))).toBe(false);
  });
});
