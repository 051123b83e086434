import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ed25519Cosigner, formatVkey, logKey, SIG_COSIGNATURE_V1 } from '../../../core/tlog/index.ts';
import { readSection } from '../../../config/index.ts';
import { loadTlogWitnesses, tlogConfig } from './config.ts';

const vkeyOf = (name: string) => {
  const c = ed25519Cosigner(name, generateKeyPairSync('ed25519').privateKey);
  return formatVkey(name, SIG_COSIGNATURE_V1, c.publicKey);
};
const fail = (variable: string, message: string) => new Error(`${variable}: ${message}`);

describe('SUITE_TLOG_WITNESSES', () => {
  it('reads comma-separated "<URL> <vkey>" entries, the name from the vkey, the URL without a trailing slash', () => {
    const [w1, w2] = [vkeyOf('witness.test/w1'), vkeyOf('witness.test/w2')];
    expect(loadTlogWitnesses(` http://127.0.0.1:8086/ ${w1},https://w2.example/api  ${w2} `, fail)).toEqual([
      { url: 'http://127.0.0.1:8086', vkey: w1, name: 'witness.test/w1' },
      { url: 'https://w2.example/api', vkey: w2, name: 'witness.test/w2' },
    ]);
    expect(loadTlogWitnesses(undefined, fail)).toEqual([]);
    expect(loadTlogWitnesses('  ', fail)).toEqual([]);
  });

  it('refuses what is not a witness, naming the entry', () => {
    const w1 = vkeyOf('witness.test/w1');
    const logVkey = logKey('log.test/x', generateKeyPairSync('ed25519').privateKey).vkey;
    for (const [raw, reason] of [
      [w1, /entry 1: each entry is "<URL> <vkey>"/],
      [`ftp://x ${w1}`, /entry 1: a witness URL is http or https/],
      [`not-a-url ${w1}`, /entry 1: "not-a-url" is not a URL/],
      [`http://a ${w1}, http://b nonsense`, /entry 2: a vkey is/],
      [`http://a ${logVkey}`, /entry 1: a witness vkey is a cosignature\/v1 key/],
      [`http://a ${w1}, http://b ${w1}`, /entry 2: witness witness.test\/w1 is named twice/],
    ] as const)
      expect(() => loadTlogWitnesses(raw, fail), raw).toThrow(reason);
  });
});

describe('SUITE_TLOG_ORIGIN', () => {
  it('defaults the origin, and refuses one that cannot be a note key name', () => {
    expect(readSection(tlogConfig, {}).tlogOrigin).toBe('agent-suite.local/executions/log');
    expect(readSection(tlogConfig, { SUITE_TLOG_ORIGIN: 'audit.example.com/executions/log' }).tlogOrigin).toBe('audit.example.com/executions/log');
    for (const bad of ['audit example', 'a+b', 'x'.repeat(201)]) {
      expect(() => readSection(tlogConfig, { SUITE_TLOG_ORIGIN: bad }), bad).toThrow(/SUITE_TLOG_ORIGIN: must be 1 to 200 characters/);
    }
  });
});
