import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ExecutionChainVerifier, executionExportLine, keyIdOf, type ExecutionRecord } from './index.ts';
import { documentedBlock, runDocumentedScript, traceFormatDoc } from '../../testing/trace-format.ts';

/**
 * The frozen v1 fixture chain (docs/TRACE-FORMAT.md, "Versions and the frozen fixture"). These
 * files are never regenerated: if a test here fails, the code stopped verifying version 1 records,
 * and the code is what must change.
 */
const read = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const fixture = JSON.parse(read('chain-v1.json')) as {
  publicKeyPem: string;
  keyId: string;
  head: { seq: number; hash: string };
  records: ExecutionRecord[];
};
const exported = read('chain-v1.trace');
const publicKeyPem = read('chain-v1.pub.pem');

describe('the frozen v1 fixture chain', () => {
  it("keeps verifying with the code's verifier, up to its recorded head", () => {
    const key = createPublicKey(publicKeyPem);
    expect(keyIdOf(key)).toBe(fixture.keyId);
    const verifier = new ExecutionChainVerifier((id) => (id === fixture.keyId ? key : undefined));
    for (const r of fixture.records) expect(verifier.push(r), `record ${r.seq}`).toBe(true);
    expect(verifier.finish(fixture.head)).toEqual({ valid: true, checked: 12, headHash: fixture.head.hash });
  });

  it('has an export that is exactly the export form of its records', () => {
    expect(exported).toBe(fixture.records.map((r) => `${executionExportLine(r)}\n`).join(''));
  });

  it('verifies, one record and the whole exported chain, with the documented sh/sha256sum/openssl steps', () => {
    const line = exported.split('\n')[0] as string;
    const one = runDocumentedScript('verify-record', { 'record.line': `${line}\n`, 'pub.pem': publicKeyPem });
    expect(one, one.stderr).toMatchObject({ status: 0 });
    expect(one.stdout).toBe(`canonical.json: OK\nSignature Verified Successfully\n${fixture.keyId.slice('ed25519-'.length)}\n`);
    const all = runDocumentedScript('verify-chain', { 'chain.trace': exported, [`keys/${fixture.keyId}.pem`]: publicKeyPem });
    expect(all, all.stderr).toMatchObject({ status: 0, stdout: `chain verified: 12 records, head ${fixture.head.hash}\n` });
  });

  it('fails the documented steps on an edited record, a re-ordered chain and a foreign key, naming the record', () => {
    const lines = exported.trimEnd().split('\n');
    const keys = { [`keys/${fixture.keyId}.pem`]: publicKeyPem };
    const edited = lines.map((l, i) => (i === 4 ? l.replace('"outcome":"success"', '"outcome":"failure"') : l));
    expect(edited[4]).not.toBe(lines[4]);
    expect(runDocumentedScript('verify-chain', { 'chain.trace': `${edited.join('\n')}\n`, ...keys })).toMatchObject({
      status: 1,
      stdout: 'record 5: content does not match its hash\n',
    });
    const swapped = [...lines];
    [swapped[6], swapped[7]] = [swapped[7] as string, swapped[6] as string];
    expect(runDocumentedScript('verify-chain', { 'chain.trace': `${swapped.join('\n')}\n`, ...keys })).toMatchObject({
      status: 1,
      stdout: 'record 7: prevHash does not link to record 6\n',
    });
    const other = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const foreign = runDocumentedScript('verify-chain', { 'chain.trace': exported, [`keys/${fixture.keyId}.pem`]: other });
    expect(foreign).toMatchObject({ status: 1, stdout: `record 1: signature does not verify with keys/${fixture.keyId}.pem\n` });
    const one = runDocumentedScript('verify-record', { 'record.line': `${edited[4]}\n`, 'pub.pem': publicKeyPem });
    expect(one.status).not.toBe(0);
  });

  it('is the worked example of docs/TRACE-FORMAT.md, with its real values', () => {
    const [hash, signature, signed] = splitLine(exported.split('\n')[0] as string);
    expect(documentedBlock('example:signed-bytes')).toBe(`${signed}\n`);
    const doc = traceFormatDoc();
    expect(doc).toContain(`"hash": "${hash}"`);
    expect(doc).toContain(`"signature": "${signature}"`);
    expect(doc).toContain(publicKeyPem.trim());
    expect(doc).toContain(`one line, ${Buffer.byteLength(signed)} bytes`);
    expect(doc).toContain(`chain verified: 12 records, head ${fixture.head.hash}`);
  });
});

function splitLine(line: string): [string, string, string] {
  const first = line.indexOf(' ');
  const second = line.indexOf(' ', first + 1);
  return [line.slice(0, first), line.slice(first + 1, second), line.slice(second + 1)];
}
