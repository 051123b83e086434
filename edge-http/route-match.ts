/**
 * Whether a concrete path is one a listener's route patterns serve (`/evidence/:subjectId`,
 * `/api/:listener/*`), for the not-found answer that names the listener serving a path sent to the
 * wrong one (issue 23 part 6). The patterns are find-my-way's as our routes write them: `:name` is
 * one segment, a final `*` the rest. Methods are not compared: a path another listener serves under
 * any method is worth naming.
 */
export function routeMatcher(patterns: readonly string[]): (path: string) => boolean {
  const compiled = patterns.map(patternRegExp);
  return (path) => {
    const bare = path.split('?', 1)[0] as string;
    return compiled.some((re) => re.test(bare));
  };
}

function patternRegExp(pattern: string): RegExp {
  const body = pattern
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*';
      return segment
        .split(/(:[A-Za-z0-9_]+)/)
        .map((part) => (part.startsWith(':') ? '[^/]+' : escapeRegExp(part)))
        .join('');
    })
    .join('/');
  return new RegExp(`^${body}/?$`);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
