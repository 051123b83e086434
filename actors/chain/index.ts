/** The trace signer the suite runs with: Ed25519 batches signed on a worker thread of their own. */
export { createThreadedTraceSigner } from './threaded-signer.ts';
