import { describe, expect, it } from 'vitest';
import { disagreementOf, findingsOnInsert, isStalled, placeOf } from './anomalies.ts';

const bounds = { maxDepth: 3, maxFanOut: 2, stallMs: 1000 };

describe('anomaly rules', () => {
  it("places a child on its parent's path of agents, one deeper", () => {
    const root = placeOf({ id: 'i1', chainId: 'c', parentId: null, caller: 'a', callee: 'b' }, null);
    expect(root).toEqual({ path: ['a', 'b'], depth: 1 });
    expect(placeOf({ id: 'i2', chainId: 'c', parentId: 'i1', caller: 'b', callee: 'c' }, root)).toEqual({ path: ['a', 'b', 'c'], depth: 2 });
  });

  it('finds a cycle when a callee is already on its own call path', () => {
    const place = { path: ['a', 'b', 'a'], depth: 2 };
    expect(findingsOnInsert({ id: 'i2', chainId: 'c', parentId: 'i1', caller: 'b', callee: 'a' }, place, 1, bounds)).toEqual([
      { kind: 'cycle', key: 'cycle:i2', detail: 'a is called again within its own call path (a -> b -> a)' },
    ]);
  });

  it('finds a runaway past the depth bound and past the fan-out bound', () => {
    const deep = findingsOnInsert({ id: 'i4', chainId: 'c', parentId: 'i3', caller: 'x', callee: 'y' }, { path: ['p', 'q', 'x', 'y'], depth: 4 }, 1, bounds);
    expect(deep.map((f) => f.key)).toEqual(['runaway-depth:c']);
    const wide = findingsOnInsert({ id: 'i9', chainId: 'c', parentId: 'i1', caller: 'a', callee: 'z' }, { path: ['a', 'z'], depth: 2 }, 3, bounds);
    expect(wide.map((f) => f.key)).toEqual(['runaway-fanout:i1']);
    expect(findingsOnInsert({ id: 'i9', chainId: 'c', parentId: 'i1', caller: 'a', callee: 'z' }, { path: ['a', 'z'], depth: 2 }, 2, bounds)).toEqual([]);
  });

  it('finds disagreement only when observers differ on the outcome', () => {
    expect(
      disagreementOf('i1', [
        { observer: 'o1', outcome: 'success' },
        { observer: 'o2', outcome: 'success' },
      ]),
    ).toBeNull();
    expect(
      disagreementOf('i1', [
        { observer: 'o1', outcome: 'success' },
        { observer: 'o2', outcome: 'failure' },
      ])?.detail,
    ).toBe('observers of i1 disagree on its outcome: failure (o2) vs success (o1)');
  });

  it('calls a chain stalled only when its newest interaction is pending past the window', () => {
    expect(isStalled({ lastOutcome: 'pending', lastActivityMs: 0 }, 1001, bounds)).toBe(true);
    expect(isStalled({ lastOutcome: 'pending', lastActivityMs: 0 }, 1000, bounds)).toBe(false);
    expect(isStalled({ lastOutcome: 'success', lastActivityMs: 0 }, 99_999, bounds)).toBe(false);
  });
});
