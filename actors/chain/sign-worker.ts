import { sign, type KeyObject } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';

/**
 * The signing thread (signing-thread.ts): Ed25519 over each 32-byte digest it is sent, 64 bytes of
 * signature each, in order. It holds the private key and nothing else.
 */
if (!parentPort) throw new Error('sign-worker.ts runs as a worker thread');
const port = parentPort;
const key = (workerData as { key: KeyObject }).key;

port.on('message', ({ id, digests }: { id: number; digests: Uint8Array }) => {
  const n = digests.length / 32;
  const signatures = new Uint8Array(n * 64);
  for (let i = 0; i < n; i++) signatures.set(sign(null, digests.subarray(i * 32, i * 32 + 32), key), i * 64);
  port.postMessage({ id, signatures }, [signatures.buffer]);
});
