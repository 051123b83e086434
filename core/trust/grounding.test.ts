import { describe, expect, it } from 'vitest';
import { checkGrounding } from './grounding.ts';
import { CORPUS } from './grounding-corpus.ts';

describe('trust rule 5: POST /verify returns risk signals against the sources, never a truth verdict', () => {
  it('the labelled corpus holds at least 30 pairs of every kind', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(30);
    const kinds = new Set(CORPUS.map((p) => p.defect?.type ?? 'supported'));
    expect([...kinds].sort()).toEqual([
      'date-not-in-sources',
      'entity-not-in-sources',
      'number-not-in-sources',
      'quotation-not-found',
      'supported',
      'unsupported-claim',
    ]);
  });

  it.each(CORPUS.filter((p) => p.defect === null))('gives no signal on a supported output ($name)', ({ output, sources }) => {
    expect(checkGrounding(output, sources).signals).toEqual([]);
  });

  it.each(CORPUS.filter((p) => p.defect !== null))('flags the planted defect at its span ($name)', ({ output, sources, defect }) => {
    const { signals } = checkGrounding(output, sources);
    const hit = signals.find((s) => s.type === defect!.type && s.span.text.includes(defect!.span));
    expect(hit, JSON.stringify(signals, null, 1)).toBeDefined();
    expect(output.slice(hit!.span.start, hit!.span.end)).toBe(hit!.span.text);
  });

  it('answers with signals and counts, and a notice in place of any verdict', () => {
    const report = checkGrounding('The bridge cost 19 million dollars.', ['The bridge cost 18 million dollars.']);
    expect(Object.keys(report).sort()).toEqual(['checked', 'notice', 'signals']);
    expect(report.notice).toMatch(/does not make the output true/);
    expect(JSON.stringify(report)).not.toMatch(/"(verdict|true|false|score)"/);
  });

  it('is deterministic: the same input gives the same report', () => {
    for (const p of CORPUS) expect(checkGrounding(p.output, p.sources)).toEqual(checkGrounding(p.output, p.sources));
  });

  it('names the closest source sentence of an unsupported claim and how much of it that sentence covers', () => {
    const [signal] = checkGrounding('Inspectors found serious cracks in the bridge pillars.', ['The bridge is 320 metres long.']).signals;
    expect(signal).toMatchObject({ type: 'unsupported-claim', closest: { source: 0, sentence: 'The bridge is 320 metres long.' } });
    expect(signal!.closest!.coverage).toBeLessThan(0.5);
  });
});
