import { parentPort } from 'node:worker_threads';
import type { KeyObject } from 'node:crypto';
import { precompute, type ExecutionRecord } from '../chain/index.ts';
import type { VerifyJob } from './verify-pool.ts';

/**
 * A verification thread (actors/executions/verify-pool.ts): hashes and signature checks of the
 * records it is sent, one byte of verdict per record (bit 0 content, bit 1 signature). It holds no
 * state but the keys of the job at hand, and never sees anything but signed records.
 */
if (!parentPort) throw new Error('verify-worker.ts runs as a worker thread');
const port = parentPort;

port.on('message', (job: VerifyJob) => {
  const keys = new Map<string, KeyObject>(job.keys);
  const lookup = (keyId: string) => job.pinned ?? keys.get(keyId);
  const verdicts = new Uint8Array(job.records.length);
  for (let i = 0; i < job.records.length; i++) {
    const v = precompute(job.records[i] as ExecutionRecord, lookup);
    verdicts[i] = (v.contentOk ? 1 : 0) | (v.signatureOk ? 2 : 0);
  }
  port.postMessage({ id: job.id, verdicts }, [verdicts.buffer]);
});
