import { describe, expect, it } from 'vitest';
import { cpuRatiosMarkdown } from './cpu-ratios.ts';

const figures = { bareUs: 20, validateUs: 200, appendUs: 700, signatureUs: 70, load: { http: 1, append: 1, signature: 1 } };

describe("npm run bench's CPU ratios", () => {
  it('says a run with non-2xx answers is invalid for its request instead of quoting it silently', () => {
    const text = cpuRatiosMarkdown({ ...figures, non2xx: { bare: 0, validate: 79_102, append: 0 } });
    expect(text).toContain('validate / bare = **10.0×**');
    expect(text).toMatch(/INVALID for validate\*\*: its run had 79102 non-2xx answers/);
    expect(text).not.toMatch(/INVALID for (bare|append)/);
  });

  it('adds nothing when every answer was 2xx', () => {
    expect(cpuRatiosMarkdown({ ...figures, non2xx: { bare: 0, validate: 0, append: 0 } })).not.toContain('INVALID');
  });
});
