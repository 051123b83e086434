import type { SubjectRule, TrustedIssuer } from './trusted-issuers.ts';

/**
 * Glob on an external `sub`: `*` matches any run of characters (including `:` and `/`, so
 * `system:serviceaccount:payments:*` and `repo:acme/*:ref:refs/heads/main` both work), `?` exactly
 * one; everything else is literal. Written by hand (a loop, no RegExp built from config, so no
 * ReDoS): the iterative wildcard match with one backtrack point is linear-ish and well known.
 */
export function globMatches(pattern: string, value: string): boolean {
  let p = 0;
  let v = 0;
  let star = -1;
  let mark = 0;
  while (v < value.length) {
    if (p < pattern.length && (pattern[p] === '?' || pattern[p] === value[v])) {
      p++;
      v++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      mark = v;
    } else if (star !== -1) {
      p = star + 1;
      v = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

/** The first rule (in file order) whose glob matches `sub`: the file's order is the operator's priority. */
export function matchSubject(issuer: TrustedIssuer, sub: string): SubjectRule | undefined {
  return issuer.subjects.find((rule) => globMatches(rule.match, sub));
}

/**
 * The suite subject an external subject becomes: `<issuer>#<sub>`. The issuer is part of it so that
 * two issuers' equal `sub` values (two clusters' `default` service accounts) are never one subject.
 */
export const federatedSubject = (issuer: string, sub: string): string => `${issuer}#${sub}`;
