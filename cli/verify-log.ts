/**
 * `suite verify --receipt FILE` and `suite verify --checkpoint FILE`: the execution log's receipts
 * and checkpoints checked offline (docs/TRACE-FORMAT.md, "The transparency log"), with public keys
 * only: the trace key(s) (`--public-key`), the log's vkey (`--log-vkey`, as GET /executions/log/vkey
 * answers it) and, for a witness quorum, the witnesses' vkeys and `--quorum N`.
 */
import { readFile } from 'node:fs/promises';
import type { KeyObject } from 'node:crypto';
import { describeFsck, fsckServedLog } from './verify-log-served.ts';
import { checkpointPolicyOf, openCheckpoint, verifyReceipt, type CheckpointPolicy, type ExecutionReceipt } from '../core/tlog/index.ts';

export const VERIFY_LOG_USAGE = `  suite verify --receipt FILE --public-key PEM --log-vkey VKEY|FILE [--witness-vkey VKEY|FILE ... --quorum N]
  suite verify --checkpoint FILE --log-vkey VKEY|FILE [--witness-vkey VKEY|FILE ... --quorum N]
  suite verify --log URL --log-vkey VKEY|FILE [--token TOKEN] [--since FILE ...]

A receipt (GET /executions/{id}/receipt) proves one record is in the log under a signed checkpoint:
its hash and signature, its entry, the checkpoint's signature by the log (and N witness
cosignatures), and the inclusion proof to the checkpoint's root. A checkpoint file
(GET /executions/log/checkpoint) is checked alone the same way.

--log URL (the token listener, e.g. http://127.0.0.1:8081) is an fsck of a running suite's log:
the tree rebuilt from every hash tile it serves, each tile above the leaves compared with its
rebuild, the root compared with the signed checkpoint's. With --token (execution:read, not a
tenant's) each entry bundle is checked against its leaves and the checkpoint's size against the
chain's head. --since FILE, a checkpoint kept from earlier: the tree must extend it (its rebuilt
root and the served consistency proof).`;

interface Output {
  write(text: string): unknown;
}

export interface LogVerifyOptions {
  receipt?: string | undefined;
  checkpoint?: string | undefined;
  log?: string | undefined;
  token?: string | undefined;
  since?: readonly string[];
  logVkey: string | undefined;
  witnessVkeys: readonly string[];
  quorum: number;
  keys: ReadonlyMap<string, KeyObject>;
}

export async function verifyLogCommand(o: LogVerifyOptions, out: Output, err: Output): Promise<number> {
  const policy = checkpointPolicy(o, err);
  if (!policy) return 2;
  if (o.log !== undefined) return servedLogCommand(o.log, policy, o, out, err);
  const path = (o.receipt ?? o.checkpoint) as string;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    err.write(`suite verify: ${path}: ${(e as Error).message}\n`);
    return 2;
  }
  if (o.checkpoint !== undefined) {
    const cp = openCheckpoint(text, policy);
    if (typeof cp === 'string') return fail(out, cp);
    out.write(
      `verified: checkpoint of ${cp.checkpoint.origin}, size ${cp.checkpoint.size}, root ${cp.checkpoint.root.toString('base64')}` +
        `${cp.cosignedBy.length > 0 ? `, cosigned by ${cp.cosignedBy.join(', ')}` : ''}\n`,
    );
    return 0;
  }
  let receipt: ExecutionReceipt;
  try {
    receipt = JSON.parse(text) as ExecutionReceipt;
  } catch {
    return fail(out, 'the receipt is not JSON');
  }
  if (typeof receipt !== 'object' || receipt === null || typeof receipt.record !== 'object' || !Array.isArray(receipt.proof))
    return fail(out, 'not an execution receipt');
  const result = verifyReceipt(receipt, (keyId) => o.keys.get(keyId), policy);
  if (!result.ok) return fail(out, result.reason);
  out.write(
    `verified: record ${receipt.record.id} (seq ${receipt.record.seq}) is leaf ${result.leafIndex} of the log at size ${result.treeSize}` +
      `${result.cosignedBy.length > 0 ? `, cosigned by ${result.cosignedBy.join(', ')}` : ''}\n`,
  );
  return 0;
}

async function servedLogCommand(base: string, policy: CheckpointPolicy, o: LogVerifyOptions, out: Output, err: Output): Promise<number> {
  if (!/^https?:\/\/[^/]+$/.test(base)) {
    err.write(`suite verify: --log takes the token listener's base URL (http://host:port), not "${base}"\n`);
    return 2;
  }
  const since: string[] = [];
  for (const path of o.since ?? []) {
    try {
      since.push(await readFile(path, 'utf8'));
    } catch (e) {
      err.write(`suite verify: ${path}: ${(e as Error).message}\n`);
      return 2;
    }
  }
  let result;
  try {
    result = await fsckServedLog({ base, policy, token: o.token, since });
  } catch (e) {
    err.write(`suite verify: ${base}: ${(e as Error).message}\n`);
    return 2;
  }
  out.write(describeFsck(result));
  return result.report.ok ? 0 : 1;
}

function fail(out: Output, reason: string): number {
  out.write(`NOT verified: ${reason}\n`);
  return 1;
}

function checkpointPolicy(o: LogVerifyOptions, err: Output): CheckpointPolicy | undefined {
  if (o.logVkey === undefined) {
    err.write('suite verify: give --log-vkey\n');
    return undefined;
  }
  const policy = checkpointPolicyOf({ logVkey: o.logVkey, witnessVkeys: o.witnessVkeys, quorum: o.quorum });
  if (typeof policy === 'string') {
    err.write(`suite verify: ${policy}\n`);
    return undefined;
  }
  return policy;
}
