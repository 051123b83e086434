/** Calls per second of `work` in a hot loop on this thread, over `seconds` (checked every 100 calls). */
export function hotLoopRate(work: () => unknown, seconds: number): number {
  let n = 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  while (performance.now() < end) {
    for (let i = 0; i < 100; i++) work();
    n += 100;
  }
  return n / ((performance.now() - t0) / 1000);
}
