import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createTraceSigner, executionExportLine, GENESIS_HASH, type ExecutionRecord, type KeyLookup } from './index.ts';
import { exportFile, runDocumentedScript, signedChain, verifyExportText } from '../../testing/trace-format.ts';

const pem = () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const signer = createTraceSigner(pem());
const key = createPublicKey(signer.publicKeyPem);
const keys: KeyLookup = (id) => (id === signer.keyId ? key : undefined);
const chain = signedChain(signer, 20, (seq) => (seq % 3 === 0 ? 'ten_a' : seq % 3 === 1 ? 'ten_b' : null));
const whole = (records: readonly ExecutionRecord[] = chain) => exportFile(records, { from: 1, to: 20, tenantId: null });
const lines = (text: string) => text.split('\n');
/** Line i (0 = header) changed by `f`. */
const edit = (text: string, i: number, f: (line: string) => string) =>
  lines(text)
    .map((l, j) => (j === i ? f(l) : l))
    .join('\n');

describe('offline verification of an export file', () => {
  it('finds a whole export good, counts its records by key and names its last hash', () => {
    expect(verifyExportText(whole(), keys)).toEqual({
      valid: true,
      records: 20,
      firstSeq: 1,
      lastSeq: 20,
      lastHash: chain[19]!.hash,
      range: { from: 1, to: 20, tenantId: null },
      keys: { [signer.keyId]: 20 },
      notes: [],
    });
  });

  it('finds a partial range good, and says that its first link cannot be checked', () => {
    const r = verifyExportText(exportFile(chain.slice(4, 12), { from: 5, to: 12, tenantId: null }), keys);
    expect(r).toMatchObject({ valid: true, records: 8, firstSeq: 5, lastSeq: 12, lastHash: chain[11]!.hash });
    expect(r.notes).toEqual([expect.stringContaining('link to record 4 is not checked')]);
  });

  it("finds an empty range good (nothing after the chain's head)", () => {
    expect(verifyExportText(exportFile([], { from: 21, to: 20, tenantId: null }), keys)).toMatchObject({ valid: true, records: 0, notes: [] });
  });

  it("finds a tenant's export good, checking the links it holds and counting those it cannot", () => {
    const mine = chain.filter((r) => r.attested.tenantId === 'ten_a');
    const r = verifyExportText(exportFile(mine, { from: 1, to: 20, tenantId: 'ten_a' }), keys);
    expect(r).toMatchObject({ valid: true, records: mine.length, firstSeq: 3, lastSeq: 18 });
    expect(r.notes).toEqual([
      `${mine.length} record(s) whose link to the record before is not checked: that record belongs to another tenant and is not in this export`,
    ]);
  });

  it("refuses a record of another tenant in a tenant's export", () => {
    const text = exportFile([chain[2]!, chain[3]!], { from: 1, to: 20, tenantId: 'ten_a' });
    expect(verifyExportText(text, keys)).toMatchObject({ valid: false, brokenAt: 4, line: 3, reason: "a record of another tenant in tenant ten_a's export" });
  });

  it("keeps verifying the frozen fixture's bare record lines, saying that only the head shows records missing at the end", () => {
    const read = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
    const fixtureKey = createPublicKey(read('chain-v1.pub.pem'));
    const { keyId, head } = JSON.parse(read('chain-v1.json')) as { keyId: string; head: { hash: string } };
    const r = verifyExportText(read('chain-v1.trace'), (id) => (id === keyId ? fixtureKey : undefined));
    expect(r).toMatchObject({ valid: true, records: 12, lastHash: head.hash, keys: { [keyId]: 12 } });
    expect(r.notes).toEqual([expect.stringContaining('bare record lines')]);
  });

  describe('names the first failing seq and why', () => {
    it.each([
      [
        'an edited field',
        (t: string) => edit(t, 5, (l) => l.replace(/"outcome":"[a-z]+"/, '"outcome":"edited"')),
        { brokenAt: 5, line: 6, reason: 'content does not match its hash' },
      ],
      [
        'a signature taken from another record',
        (t: string) => edit(t, 5, (l) => l.replace(chain[4]!.signature, chain[5]!.signature)),
        { brokenAt: 5, line: 6, reason: 'signature does not verify against the public key' },
      ],
      [
        'a record left out',
        (t: string) =>
          lines(t)
            .filter((_, j) => j !== 7)
            .join('\n'),
        { brokenAt: 7, line: 8, reason: 'record 7 is missing (found 8)' },
      ],
      [
        'two records swapped',
        (t: string) => {
          const l = lines(t);
          [l[7], l[8]] = [l[8]!, l[7]!];
          return l.join('\n');
        },
        { brokenAt: 7, line: 8, reason: 'record 7 is missing (found 8)' },
      ],
      [
        'the end cut off',
        (t: string) => `${lines(t).slice(0, 15).join('\n')}\n`,
        { brokenAt: 15, line: 16, reason: 'no end line: the export is incomplete (cut short after 14 record(s))' },
      ],
      ['a line cut in the middle', (t: string) => t.slice(0, t.indexOf('\n', 2000) - 10), { reason: 'the file ends in the middle of a line (cut short?)' }],
      [
        'the last records left out, end line and all',
        (t: string) => [...lines(t).slice(0, 19), lines(t)[21], ''].join('\n'),
        { brokenAt: 19, reason: 'records 19 to 20 are missing' },
      ],
      [
        'an end line counting other records',
        (t: string) => t.replace('"records":20', '"records":21'),
        { reason: 'the end line counts 21 record(s), the export holds 20' },
      ],
      ['a line that is not a record', (t: string) => edit(t, 3, () => 'hello world'), { line: 4, reason: 'malformed: not <hash> <signature> <signed bytes>' }],
      [
        'signed bytes reformatted',
        (t: string) => edit(t, 3, (l) => l.replace('"action":', '"action": ')),
        { brokenAt: 3, reason: 'content does not match its hash' },
      ],
      ['a line after the end line', (t: string) => `${t}${executionExportLine(chain[0]!)}\n`, { line: 23, reason: 'a line after the end line' }],
      [
        'a header of an unknown format',
        (t: string) => t.replace('"format":1', '"format":2'),
        { line: 1, reason: 'export format 2 is not known to this verifier' },
      ],
    ])('%s', (_name, tamper, expected) => {
      const r = verifyExportText(tamper(whole()), keys);
      expect(r).toMatchObject({ valid: false, ...expected });
      if (!('brokenAt' in expected)) expect(r.brokenAt).toBeUndefined();
    });

    it('a key other than the one the records name', () => {
      const other = createPublicKey(createTraceSigner(pem()).publicKeyPem);
      expect(verifyExportText(whole(), () => other)).toMatchObject({ valid: false, brokenAt: 1, reason: 'signature does not verify against the public key' });
      expect(verifyExportText(whole(), () => undefined)).toMatchObject({ valid: false, brokenAt: 1, reason: `no public key for keyId ${signer.keyId}` });
    });

    it('a first record that does not start the chain', () => {
      const forged = { ...chain[0]!, prevHash: '1'.repeat(64) };
      expect(forged.prevHash).not.toBe(GENESIS_HASH);
      const r = verifyExportText(whole([forged, ...chain.slice(1)]), keys);
      expect(r).toMatchObject({ valid: false, brokenAt: 1, reason: 'content does not match its hash' });
    });
  });
});

/**
 * The documented sh/sha256sum/openssl script (docs/TRACE-FORMAT.md, "Worked example: an exported
 * chain") and the verifier agree on every file: good ones pass both, bad ones fail both.
 */
describe('the documented openssl script and the verifier', () => {
  const small = chain.slice(0, 8);
  const file = exportFile(small, { from: 1, to: 8, tenantId: null });
  const run = (text: string) => runDocumentedScript('verify-chain', { 'chain.trace': text, [`keys/${signer.keyId}.pem`]: signer.publicKeyPem });

  it.each([
    ['a whole export', file, `chain verified: 8 records, head ${small[7]!.hash}\n`],
    [
      'a partial export',
      exportFile(small.slice(3), { from: 4, to: 8, tenantId: null }),
      `record 4: its link to record 3 is not checked (not in this export)\nchain verified: 5 records, head ${small[7]!.hash}\n`,
    ],
    ['an empty export', exportFile([], { from: 9, to: 8, tenantId: null }), 'chain verified: 0 records, head (none)\n'],
  ])('both find %s good', (_name, text, stdout) => {
    expect(verifyExportText(text, keys).valid).toBe(true);
    expect(run(text)).toMatchObject({ status: 0, stdout });
  });

  it.each([
    ['an edited field', edit(file, 3, (l) => l.replace(/"outcome":"[a-z]+"/, '"outcome":"edited"')), 'record 3: content does not match its hash'],
    [
      'a signature taken from another record',
      edit(file, 3, (l) => l.replace(small[2]!.signature, small[3]!.signature)),
      `record 3: signature does not verify with keys/${signer.keyId}.pem`,
    ],
    [
      'a record left out',
      lines(file)
        .filter((_, j) => j !== 5)
        .join('\n'),
      'record 5: prevHash does not link to record 4',
    ],
    ['the end line cut off', `${lines(file).slice(0, 7).join('\n')}\n`, 'no end line: the export is incomplete'],
    ['the last records and the end line kept', [...lines(file).slice(0, 7), lines(file)[9], ''].join('\n'), 'the export ends at record 6, its header says 8'],
    ['a line after the end line', `${file}${executionExportLine(small[0]!)}\n`, 'a line after the end line'],
    [
      "a tenant's export",
      exportFile(
        small.filter((r) => r.attested.tenantId === 'ten_a'),
        { from: 1, to: 8, tenantId: 'ten_a' },
      ),
      "a tenant's export: check it with suite verify",
    ],
  ])('both find %s bad', (name, text, message) => {
    const script = run(text);
    expect(script.stdout.trim().split('\n').at(-1)).toBe(message);
    expect(script.status).toBe(1);
    // The tenant's export is good: the script only refuses to judge it.
    expect(verifyExportText(text, keys).valid).toBe(name === "a tenant's export");
  });
});
