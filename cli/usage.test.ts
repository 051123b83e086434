import { describe, expect, it } from 'vitest';
import { closest, editDistance, unknownWord } from './usage.ts';

describe('did-you-mean', () => {
  it('counts a swap of neighbours as one edit', () => {
    expect(editDistance('verfy', 'verify')).toBe(1);
    expect(editDistance('strat', 'start')).toBe(1);
    expect(editDistance('abc', 'abc')).toBe(0);
    expect(editDistance('', 'run')).toBe(3);
  });

  it('suggests the closest known word only when it is close', () => {
    expect(closest('edge:tokn', ['edge:token', 'edge:trust'])).toBe('edge:token');
    expect(closest('--data-dri', ['--data-dir', '--help'])).toBe('--data-dir');
    expect(closest('frobnicate', ['start', 'run', 'verify'])).toBeUndefined();
    expect(closest('x', ['run'])).toBeUndefined();
  });

  it('names the unknown word and the suggestion', () => {
    expect(unknownWord('command', 'migrat', ['migrate']).message).toBe('unknown command "migrat" (did you mean "migrate"?)');
    expect(unknownWord('option', '--hlep', ['--help'], (w) => w).message).toBe('unknown option --hlep (did you mean --help?)');
  });
});
