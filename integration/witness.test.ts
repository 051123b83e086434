import { createPrivateKey, generateKeyPairSync, createPublicKey } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  consistencyProof,
  cosignatureVerifier,
  formatCheckpoint,
  logKey,
  openCheckpoint,
  parseNote,
  parseVkey,
  signNote,
  type ExecutionReceipt,
} from '../core/tlog/index.ts';
import { verifyReceipt } from '../client/src/verify.ts';
import { startTestSuite, type TestSuite } from '../testing/suite.ts';
import { startWitnessProcess, type WitnessProcess } from '../testing/witness-process.ts';
import { addCheckpointBody, tlogHistory } from '../testing/tlog-history.ts';
import { pollUntil, printOutputOnFailure } from './helpers.ts';
import { machineTimeout } from '../testing/machine-time.ts';

/**
 * Witnesses as real processes (`suite witness`) beside a real suite whose log asks them to cosign
 * (SUITE_TLOG_WITNESSES, docs/WITNESS.md): receipts carry both cosignatures and pass
 * `suite verify --quorum 2`; a witness stopped does not stop the log; a witness's state survives its
 * restart, so it refuses after the restart what contradicts what it cosigned before.
 */
const repo = new URL('..', import.meta.url).pathname;
const ORIGIN = 'suite.test/executions/log';
const tracePem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const suiteLog = logKey(ORIGIN, createPrivateKey(tracePem));
// A second log the witnesses also follow, driven by the test itself: it can show them forks.
const OTHER = 'other.test/log';
const otherLog = logKey(OTHER, generateKeyPairSync('ed25519').privateKey);
const real = tlogHistory(OTHER, otherLog, 'real', 40);
const fork = tlogHistory(OTHER, otherLog, 'fork', 40);

let dir: string;
let suite: TestSuite;
let token: string;
const witnesses: WitnessProcess[] = [];
const start = (i: number, port?: number) =>
  startWitnessProcess({
    name: `witness-${i}`,
    dataDir: join(dir, `w${i}`),
    keyName: `witness.test/w${i}`,
    logVkeys: [suiteLog.vkey, otherLog.vkey],
    ...(port !== undefined ? { port } : {}),
  });

printOutputOnFailure(() => witnesses.map((w) => w.child.output()).join('\n'));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'suite-witness-'));
  witnesses.push(await start(1), await start(2));
  suite = await startTestSuite({
    SUITE_TRACE_PRIVATE_KEY: tracePem,
    SUITE_TLOG_ORIGIN: ORIGIN,
    SUITE_TLOG_WITNESSES: witnesses.map((w) => `${w.url} ${w.vkey}`).join(', '),
  });
  token = (await suite.mint(['execution:record', 'execution:read'])).token;
}, machineTimeout(120_000));

afterAll(async () => {
  await suite?.stop();
  await Promise.all(witnesses.map((w) => w.child.stop()));
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function record(action: string): Promise<string> {
  const res = await fetch(suite.url('token', '/executions'), {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ subject: 'test-agent', module: 'witness-test', action, input: { action }, outcome: 'success' }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** The record's receipt; throws with the answer when there is none yet (pollUntil shows the last). */
async function receipt(id: string): Promise<ExecutionReceipt> {
  const res = await fetch(suite.url('token', `/executions/${id}/receipt`), { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`receipt: ${res.status} ${await res.text()}`);
  return (await res.json()) as ExecutionReceipt;
}

/** The names of the cosignatures a checkpoint note carries (every signature line but the log's). */
const cosigners = (note: string) => {
  const n = parseNote(note);
  return typeof n === 'string'
    ? []
    : n.signatures
        .map((s) => s.name)
        .filter((name) => name !== ORIGIN)
        .sort();
};

const witnessVerifiers = () =>
  witnesses.map((w) => {
    const v = parseVkey(w.vkey);
    if (typeof v === 'string') throw new Error(v);
    return cosignatureVerifier(v.name, v.publicKey);
  });

/** Waits for the record's receipt to carry both witnesses' cosignatures. */
async function cosignedByBoth(id: string): Promise<ExecutionReceipt> {
  let got: ExecutionReceipt | undefined;
  await pollUntil(
    'a receipt whose checkpoint both witnesses cosigned',
    async () => {
      got = await receipt(id);
      return { done: cosigners(got.checkpoint).length === 2, seen: cosigners(got.checkpoint) };
    },
    { timeoutMs: 60_000, intervalMs: 100 },
  );
  return got as ExecutionReceipt;
}

async function suiteVerify(args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['cli/suite.ts', 'verify', ...args], { cwd: repo });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

describe('witnesses of the execution log (suite witness, SUITE_TLOG_WITNESSES)', () => {
  it("a receipt carries the two witnesses' valid cosignatures, and suite verify --quorum 2 passes on it", { timeout: machineTimeout(120_000) }, async () => {
    const r = await cosignedByBoth(await record('cosigned'));
    const tracePublic = createPublicKey(tracePem).export({ type: 'spki', format: 'pem' }).toString();
    // The client library's verifier (@agent-authority/client/verify), public keys only.
    const verified = verifyReceipt(r, { publicKeyPem: tracePublic, logVkey: suiteLog.vkey, witnessVkeys: witnesses.map((w) => w.vkey), quorum: 2 });
    expect(verified.ok ? verified.cosignedBy.sort() : verified.reason).toEqual(['witness.test/w1', 'witness.test/w2']);

    const file = join(dir, 'receipt.json');
    const pemFile = join(dir, 'trace.pub.pem');
    await writeFile(file, JSON.stringify(r));
    await writeFile(pemFile, tracePublic);
    const base = ['--receipt', file, '--public-key', pemFile, '--log-vkey', suiteLog.vkey, ...witnesses.flatMap((w) => ['--witness-vkey', w.vkey])];
    const ok = await suiteVerify([...base, '--quorum', '2']);
    expect(ok.code, ok.out).toBe(0);
    expect(ok.out).toMatch(/cosigned by witness\.test\/w[12], witness\.test\/w[12]/);

    // A cosignature over another checkpoint does not count: w1's line moved onto a checkpoint of another size.
    const w1Line = r.checkpoint.split('\n').find((l) => l.startsWith('\u2014 witness.test/w1 ')) as string;
    const otherCheckpoint = `${real.checkpoint(20)}${w1Line}\n`;
    const misplaced = await suiteVerify([
      '--checkpoint',
      await save('misplaced.txt', otherCheckpoint),
      '--log-vkey',
      otherLog.vkey,
      '--witness-vkey',
      witnesses[0]!.vkey,
      '--quorum',
      '1',
    ]);
    expect(misplaced.code).not.toBe(0);
    expect(misplaced.out).toMatch(/cosignature of witness\.test\/w1 does not verify/);
  });

  it('with one witness stopped the log keeps publishing, cosigned by the other; restarted, the witness catches up from the size it held', {
    timeout: machineTimeout(120_000),
  }, async () => {
    // Standalone (not relying on the test before): both witnesses hold a cosigned size first.
    await cosignedByBoth(await record('both-up'));
    const w2 = witnesses[1] as WitnessProcess;
    await w2.child.stop();
    const heldBefore = JSON.parse(await readFile(join(dir, 'w2', 'state.json'), 'utf8')) as { logs: Record<string, { size: number }> };
    const id = await record('one-witness-down');
    let got: ExecutionReceipt | undefined;
    await pollUntil(
      'a receipt for a record made while w2 is down, cosigned by w1 alone',
      async () => {
        got = await receipt(id);
        return { done: cosigners(got.checkpoint).join() === 'witness.test/w1', seen: [got.treeSize, cosigners(got.checkpoint)] };
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    expect(got!.treeSize).toBeGreaterThan(heldBefore.logs[ORIGIN]!.size);
    const metrics = await (await fetch(suite.url('token', '/metrics'))).text();
    expect(metrics).toMatch(/suite_tlog_witness_up\{witness="witness\.test\/w2"\} 0/);

    witnesses[1] = await start(2, w2.port);
    const after = await record('w2-back');
    await pollUntil(
      'a receipt cosigned by both once w2 is back',
      async () => {
        got = await receipt(after);
        return { done: cosigners(got.checkpoint).length === 2, seen: [got.treeSize, cosigners(got.checkpoint)] };
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
  });

  it('a witness restarted keeps what it cosigned: a smaller tree and a split view are refused, the split view kept as evidence', {
    timeout: machineTimeout(120_000),
  }, async () => {
    const w = witnesses[0] as WitnessProcess;
    const post = async (url: string, body: string) => {
      const res = await fetch(`${url}/add-checkpoint`, { method: 'POST', body });
      return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
    };
    expect((await post(w.url, addCheckpointBody(0, [], real.checkpoint(30)))).status).toBe(200);

    await w.child.stop();
    const again = await start(1, w.port);
    witnesses[0] = again;
    // A smaller tree after a larger one: 409 naming the size it holds, from its state on disk.
    expect(await post(again.url, addCheckpointBody(0, [], real.checkpoint(20)))).toEqual({ status: 409, type: 'text/x.tlog.size', text: '30\n' });
    // Another root at the size it cosigned: a split view, refused and kept where a person can read it.
    const split = await post(again.url, addCheckpointBody(30, [], fork.checkpoint(30)));
    expect(split.status).toBe(409);
    const evidence = await readdir(join(dir, 'w1', 'evidence'));
    expect(evidence).toHaveLength(1);
    const kept = await readFile(join(dir, 'w1', 'evidence', evidence[0] as string), 'utf8');
    expect(kept).toContain('split view: size 30');
    expect(kept).toContain(fork.checkpoint(30));
    // A fork larger than what it cosigned does not prove consistent (422), and is kept too.
    expect((await post(again.url, addCheckpointBody(30, consistencyProof(30, 40, fork.read), fork.checkpoint(40)))).status).toBe(422);
    expect(await readdir(join(dir, 'w1', 'evidence'))).toHaveLength(2);
    // The real history goes on from where it was.
    const next = await post(again.url, addCheckpointBody(30, consistencyProof(30, 40, real.read), real.checkpoint(40)));
    expect(next.status).toBe(200);
    const opened = openCheckpoint(`${real.checkpoint(40)}${next.text}`, {
      log: otherLog.verifier,
      origin: OTHER,
      witnesses: [witnessVerifiers()[0]!],
      quorum: 1,
    });
    expect(typeof opened === 'string' ? opened : opened.cosignedBy).toEqual(['witness.test/w1']);
  });

  it('a fresh witness refuses a size-0 checkpoint whose root is not the empty root, keeps it as evidence, and still cosigns the true empty tree', {
    timeout: machineTimeout(60_000),
  }, async () => {
    // A witness of its own (cosigned nothing yet): what issue 31's probe found cosigned three times.
    const fresh = await start(3);
    witnesses.push(fresh);
    const sized0 = (root: string) =>
      signNote(formatCheckpoint({ origin: OTHER, size: 0, root: Buffer.from(root, 'base64'), extensions: [] }), [otherLog.signer]);
    const post = async (body: string) => {
      const res = await fetch(`${fresh.url}/add-checkpoint`, { method: 'POST', body });
      return { status: res.status, text: await res.text() };
    };
    for (const root of ['uzf69xCPkr29tZn42w2lmdZY5z6QgkH9cy02QwcI2Ho=', 'Df7Z5SFASRDMo6Ja/UutIyihVZw7qAlKdwL+sqvSKY8=']) {
      expect(await post(addCheckpointBody(0, [], sized0(root))), root).toEqual({ status: 409, text: 'a tree of size 0 has the empty root\n' });
    }
    const evidence = await readdir(join(dir, 'w3', 'evidence'));
    expect(evidence).toHaveLength(2);
    const kept = await Promise.all(evidence.map((f) => readFile(join(dir, 'w3', 'evidence', f), 'utf8')));
    expect(kept.join('\n')).toContain('split view: size 0 with root uzf69xCPkr29tZn42w2lmdZY5z6QgkH9cy02QwcI2Ho=');
    expect((await post(addCheckpointBody(0, [], sized0('47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=')))).status).toBe(200);
  });

  it('refuses bad input with a clear plain-text answer and changes nothing', { timeout: machineTimeout(60_000) }, async () => {
    // Standalone: w1 holds a state on disk (a size of the suite's log it cosigned) to compare with;
    // no record is made after this, so the log sends it nothing more meanwhile.
    await cosignedByBoth(await record('before-bad-input'));
    const w = witnesses[0] as WitnessProcess;
    const state = await readFile(join(dir, 'w1', 'state.json'), 'utf8');
    const cases: Array<[string, number]> = [
      ['', 400],
      ['old -1\n\nx', 400],
      ['old 99999999999999999999\n\nx', 400],
      [`old 0\n${'A'.repeat(20_000)}\n\nx`, 413],
      [addCheckpointBody(0, [], 'no.such/log\n1\nAAAA\n'), 404],
      [addCheckpointBody(0, [], real.checkpoint(40, logKey(OTHER, generateKeyPairSync('ed25519').privateKey))), 403],
    ];
    for (const [body, status] of cases) {
      const res = await fetch(`${w.url}/add-checkpoint`, { method: 'POST', body });
      expect(res.status, body.slice(0, 40)).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    }
    expect((await fetch(`${w.url}/nothing-here`)).status).toBe(404);
    expect((await fetch(`${w.url}/add-checkpoint`)).status).toBe(404);
    expect((await (await fetch(`${w.url}/vkey`)).text()).trim()).toBe(w.vkey);
    expect(await readFile(join(dir, 'w1', 'state.json'), 'utf8')).toBe(state);
  });
});

async function save(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}
