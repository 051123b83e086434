import { describe, expect, it } from 'vitest';
import { isNormalSubject, normaliseSubject } from './index.ts';

const refused = (text: string) => {
  const verdict = normaliseSubject(text);
  expect(verdict.ok, JSON.stringify(text)).toBe(false);
  return verdict.ok ? '' : verdict.problem;
};

describe('the subject rule', () => {
  it('keeps plain subjects as they are, inner spaces and non-Latin letters included', () => {
    for (const s of ['agent-1', 'agent 1', 'ops@example.com', 'Agent_Ωmega', 'エージェント', 'агент-7', 'a.b/c:d']) {
      expect(normaliseSubject(s)).toEqual({ ok: true, subject: s });
    }
  });

  it('normalises a decomposed spelling to NFC, so both spellings name one subject', () => {
    const decomposed = 'rene\u0301';
    expect(normaliseSubject(decomposed)).toEqual({ ok: true, subject: 'ren\u00e9' });
    expect(isNormalSubject(decomposed)).toBe(false);
    expect(isNormalSubject('ren\u00e9')).toBe(true);
  });

  it('refuses leading and trailing white space', () => {
    for (const s of ['agent-1 ', ' agent-1', 'agent-1\t', 'agent-1\u00a0', ' ']) refused(s);
    expect(refused('agent-1 ')).toMatch(/white space/);
  });

  it('refuses invisible, bidi and control characters anywhere, naming the code point', () => {
    expect(refused('agent\u200b-1')).toMatch(/U\+200B/);
    for (const s of [
      'agent\u200c1',
      'agent\u200d1',
      '\ufeffagent',
      'agent\u202e1-',
      'agent\u2066x',
      'age\u00adnt',
      'a\u0000b',
      'a\u0007b',
      'a\u2028b',
      'a\ue000b',
      'a\u2060b',
      'a\u180eb',
    ])
      refused(s);
  });

  it('refuses full-width and other compatibility look-alikes', () => {
    expect(refused('\uff41\uff47\uff45\uff4e\uff54-1')).toMatch(/compatibility/);
    for (const s of ['agent\u30001', 'a\ufb01x', 'agent\u00b2', '\uff21']) refused(s);
  });

  it('refuses the empty string and a lone surrogate', () => {
    refused('');
    expect(refused('a\ud800b')).toMatch(/surrogate/);
  });
});
