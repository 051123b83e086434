import { describe, expect, it } from 'vitest';
import { Slots } from './slots.ts';
import { backoffMs, BACKOFF_MAX_MS } from './backoff.ts';

describe('the cap on calls in flight to one upstream', () => {
  it('grants up to the cap at once, hands a released slot to the first waiter, and refuses a waiter whose wait ran out', async () => {
    const slots = new Slots(2);
    expect(await slots.acquire(0)).toBe(true);
    expect(await slots.acquire(0)).toBe(true);
    const first = slots.acquire(60_000);
    const expired = slots.acquire(1);
    expect(await expired).toBe(false);
    slots.release();
    expect(await first).toBe(true);
    expect(slots.busy).toBe(2);
    slots.release();
    slots.release();
    expect(slots.busy).toBe(0);
  });
});

describe('the backoff before connecting to a lost upstream again', () => {
  it('doubles from 250 ms, never passes 30 s, and takes at most a fifth off at random', () => {
    expect([0, 1, 2, 3].map((n) => backoffMs(n, () => 0))).toEqual([250, 500, 1000, 2000]);
    expect(backoffMs(50, () => 0)).toBe(BACKOFF_MAX_MS);
    expect(backoffMs(0, () => 1)).toBe(200);
  });
});
