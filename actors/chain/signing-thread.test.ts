import { afterEach, describe, expect, it } from 'vitest';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { createTraceSigner, type TraceSigner } from '../../core/chain/index.ts';
import { createThreadedTraceSigner } from './threaded-signer.ts';
import { SigningThread } from './signing-thread.ts';

const digest = (i: number) => createHash('sha256').update(`record ${i}`).digest('hex');

describe('signing on a thread of its own', () => {
  const open: Array<TraceSigner | SigningThread> = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });

  it('gives the same signatures as signing on this thread, in order (Ed25519 is deterministic)', async () => {
    const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const threaded = createThreadedTraceSigner(pem);
    const here = createTraceSigner(pem);
    open.push(threaded, here);
    const hashes = Array.from({ length: 300 }, (_, i) => digest(i));
    const [a, b] = await Promise.all([threaded.signMany(hashes.slice(0, 150)), threaded.signMany(hashes.slice(150))]);
    expect([...a, ...b]).toEqual(hashes.map((h) => here.sign(h)));
    expect(await here.signMany(hashes.slice(0, 3))).toEqual(a.slice(0, 3));
  });

  it('refuses a hash that is not 64 hex digits without sending anything', async () => {
    const thread = new SigningThread(generateKeyPairSync('ed25519').privateKey);
    open.push(thread);
    await expect(thread.sign([digest(1), 'zz'.repeat(32)])).rejects.toThrow(/64 hex digits/);
    await expect(thread.sign(['abcd'])).rejects.toThrow(/64 hex digits/);
    expect(await thread.sign([digest(1)])).toHaveLength(1);
  });

  it('fails the batches of a thread that dies, and signs the next batch on a fresh thread', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    // The real signing thread, except that it exits when asked to sign the all-ff digest.
    const thread = new SigningThread(privateKey, new URL('./fixtures/sign-worker-that-crashes.ts', import.meta.url));
    open.push(thread);
    expect(await thread.sign([digest(1)])).toHaveLength(1);
    const crashing = thread.sign(['ff'.repeat(32)]);
    const behind = thread.sign([digest(2)]);
    await expect(crashing).rejects.toThrow(/exited with code 3/);
    await expect(behind).rejects.toThrow(/exited with code 3/);
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(await thread.sign([digest(3)])).toEqual([createTraceSigner(pem).sign(digest(3))]);
  });

  it('refuses work once closed', async () => {
    const thread = new SigningThread(generateKeyPairSync('ed25519').privateKey);
    await thread.close();
    await expect(thread.sign([digest(1)])).rejects.toThrow(/closed/);
  });
});
