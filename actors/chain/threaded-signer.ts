import { createTraceSigner, type TraceSigner } from '../../core/chain/index.ts';
import { SigningThread } from './signing-thread.ts';

/** The suite's trace signer: batches are signed on a worker thread of their own, off the thread that serves HTTP. */
export function createThreadedTraceSigner(privateKeyPem: string | undefined): TraceSigner {
  return createTraceSigner(privateKeyPem, { batches: (key) => new SigningThread(key) });
}
