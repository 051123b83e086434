import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Constant-time check of a presented admin key: both sides are hashed first so that the comparison
 * takes the same time whatever the lengths.
 */
export function adminKeyMatcher(configured: string | undefined): (presented: string) => boolean {
  if (configured === undefined) return () => false;
  const expected = createHash('sha256').update(configured).digest();
  return (presented) => timingSafeEqual(createHash('sha256').update(presented).digest(), expected);
}
