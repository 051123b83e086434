import { describe, expect, it } from 'vitest';
import { routeMatcher } from './route-match.ts';

describe('route matcher', () => {
  const served = routeMatcher(['/schedule', '/schedule/:id/pause', '/evidence/:subjectId', '/api/:listener/*', '/executions/log/tile/:level/:index']);

  it('matches concrete paths of static and parameterised patterns, the query ignored', () => {
    expect(served('/schedule')).toBe(true);
    expect(served('/schedule?limit=5')).toBe(true);
    expect(served('/schedule/nightly/pause')).toBe(true);
    expect(served('/evidence/agent-1')).toBe(true);
    expect(served('/api/token/audit/verify')).toBe(true);
    expect(served('/executions/log/tile/0/x001')).toBe(true);
  });

  it('does not match other paths, a parameter spanning segments, or a pattern read as a regular expression', () => {
    expect(served('/schedules')).toBe(false);
    expect(served('/schedule/a/b/pause')).toBe(false);
    expect(served('/evidence')).toBe(false);
    expect(served('/evidence/a/b')).toBe(false);
    expect(routeMatcher(['/a.b'])('/axb')).toBe(false);
  });
});
