/**
 * One of bench/executions.ts's threads measuring Ed25519 verification on every core at once: the
 * same loop as its one-core figure, over the digest and signature it is given, for `seconds`.
 */
import { createPublicKey } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { verifyHashSignature } from '../core/chain/index.ts';
import { hotLoopRate } from './hot-loop.ts';

const { publicKeyPem, digest, signature, seconds, startAt } = workerData as {
  publicKeyPem: string;
  digest: string;
  signature: string;
  seconds: number;
  startAt: number;
};
const key = createPublicKey(publicKeyPem);
// Every thread starts together (a wall-clock instant), so that they overlap for the whole run.
while (Date.now() < startAt) verifyHashSignature(key, digest, signature);
parentPort?.postMessage(hotLoopRate(() => verifyHashSignature(key, digest, signature), seconds));
