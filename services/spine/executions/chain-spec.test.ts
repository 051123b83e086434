import { describe, expect, it } from 'vitest';
import { newExecutionId } from './chain-spec.ts';

describe('execution ids', () => {
  it('are exec_ and 32 hex digits, each distinct, across many refills of the random pool', () => {
    const ids = Array.from({ length: 2000 }, () => newExecutionId());
    for (const id of ids) expect(id).toMatch(/^exec_[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // 16 bytes each, 4 KiB per draw: consecutive ids share no bytes, so none repeats a neighbour's half.
    const halves = new Set(ids.flatMap((id) => [id.slice(5, 21), id.slice(21)]));
    expect(halves.size).toBe(2 * ids.length);
  });
});
