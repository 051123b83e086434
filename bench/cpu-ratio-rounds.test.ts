import { describe, expect, it } from 'vitest';
import { roundsMarkdown } from './cpu-ratio-rounds.ts';
import { cpuPerAnsweredWithTailUs } from './cpu-ratios.ts';
import type { LoadResult } from './load.ts';

const round = (validate: number, invalid: string[] = []) => ({ bare: 100, validate, append: 600, signature: 60, load: 1, invalid });

describe('the CPU ratios in alternating rounds', () => {
  it('marks a round with non-2xx answers INVALID and leaves it out of the medians', () => {
    const text = roundsMarkdown([round(1000), round(300, ['this validate: 5000 non-2xx']), round(1100)]);
    expect(text).toMatch(/\| 2 \*\*INVALID\*\* \(this validate: 5000 non-2xx\) \|/);
    // The median of the valid rounds (1000, 1100), not of all three (1000).
    expect(text).toMatch(/median of each column \(2 valid of 3\) \| 100 \| 1100 \|/);
  });

  it('charges a run the CPU its tree used after it until idle (the backlog it left)', () => {
    const run = { serverThreads: { main: 80, postgres: 20 }, statusCodes: { 200: 1000 }, total: 1000, reqPerSec: 200 } as unknown as LoadResult;
    // 1 core for 5 s = 5 s, plus 1 s of backlog afterwards, over 1000 answers: 6 ms each.
    expect(cpuPerAnsweredWithTailUs(run, 5, 1)).toBe(6000);
    expect(cpuPerAnsweredWithTailUs(run, 5, 0)).toBe(5000);
  });
});
