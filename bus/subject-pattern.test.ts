import { describe, expect, it } from 'vitest';
import { hasWildcard, isValidPattern, isValidSubject, subjectMatches } from './subject-pattern.ts';

describe('subject patterns (NATS rules, used by the memory transport)', () => {
  it('matches a literal pattern only against the same subject', () => {
    expect(subjectMatches('a.b.c', 'a.b.c')).toBe(true);
    expect(subjectMatches('a.b.c', 'a.b')).toBe(false);
    expect(subjectMatches('a.b.c', 'a.b.c.d')).toBe(false);
    expect(subjectMatches('a.b.c', 'a.b.x')).toBe(false);
  });

  it('matches * against exactly one token in any position', () => {
    expect(subjectMatches('a.*.c', 'a.b.c')).toBe(true);
    expect(subjectMatches('*.b.c', 'a.b.c')).toBe(true);
    expect(subjectMatches('a.b.*', 'a.b.c')).toBe(true);
    expect(subjectMatches('a.*', 'a')).toBe(false);
    expect(subjectMatches('a.*', 'a.b.c')).toBe(false);
    expect(subjectMatches('*', 'a')).toBe(true);
    expect(subjectMatches('*.*', 'a.b')).toBe(true);
    expect(subjectMatches('*.*', 'a')).toBe(false);
  });

  it('matches > against one or more trailing tokens but not zero', () => {
    expect(subjectMatches('a.>', 'a.b')).toBe(true);
    expect(subjectMatches('a.>', 'a.b.c.d')).toBe(true);
    expect(subjectMatches('a.>', 'a')).toBe(false);
    expect(subjectMatches('>', 'a')).toBe(true);
    expect(subjectMatches('>', 'a.b.c')).toBe(true);
    expect(subjectMatches('a.*.>', 'a.b')).toBe(false);
    expect(subjectMatches('a.*.>', 'a.b.c')).toBe(true);
  });

  it('treats * and > inside a longer token as ordinary characters', () => {
    expect(subjectMatches('a.b*', 'a.bc')).toBe(false);
    expect(subjectMatches('a.b*', 'a.b*')).toBe(true);
  });

  it('accepts only subjects without wildcards, empty tokens or whitespace', () => {
    expect(isValidSubject('tokens.issue')).toBe(true);
    expect(isValidSubject('a')).toBe(true);
    expect(isValidSubject('')).toBe(false);
    expect(isValidSubject('a..b')).toBe(false);
    expect(isValidSubject('.a')).toBe(false);
    expect(isValidSubject('a.')).toBe(false);
    expect(isValidSubject('a.*')).toBe(false);
    expect(isValidSubject('a.>')).toBe(false);
    expect(isValidSubject('a b')).toBe(false);
    expect(isValidSubject('a.b\n')).toBe(false);
  });

  it('accepts > only as the last token of a pattern', () => {
    expect(isValidPattern('a.*.c')).toBe(true);
    expect(isValidPattern('a.>')).toBe(true);
    expect(isValidPattern('>')).toBe(true);
    expect(isValidPattern('a.>.c')).toBe(false);
    expect(isValidPattern('a..>')).toBe(false);
    expect(isValidPattern('')).toBe(false);
  });

  it('tells whether a pattern holds a wildcard token', () => {
    expect(hasWildcard('a.*')).toBe(true);
    expect(hasWildcard('a.>')).toBe(true);
    expect(hasWildcard('a.b*')).toBe(false);
  });
});
