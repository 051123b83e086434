import { describe, expect, it } from 'vitest';
import { StorageError } from './errors.ts';
import { parseInt8, parseTimestamp } from './type-parsers.ts';

describe('parseTimestamp', () => {
  it('turns Postgres timestamptz text into the ISO string JS would print', () => {
    expect(parseTimestamp('2025-01-02 03:04:05.678+00')).toBe('2025-01-02T03:04:05.678Z');
    expect(parseTimestamp('2025-01-02 03:04:05+00')).toBe('2025-01-02T03:04:05.000Z');
  });

  it('truncates microseconds to milliseconds, as JS Date does', () => {
    expect(parseTimestamp('2025-01-02 03:04:05.678999+00')).toBe('2025-01-02T03:04:05.678Z');
    expect(parseTimestamp('2025-01-02 03:04:05.1+00')).toBe('2025-01-02T03:04:05.100Z');
  });

  it('converts any session zone offset to UTC', () => {
    expect(parseTimestamp('2025-01-02 08:34:05.5+05:30')).toBe('2025-01-02T03:04:05.500Z');
    expect(parseTimestamp('2025-01-01 22:04:05-05')).toBe('2025-01-02T03:04:05.000Z');
    expect(parseTimestamp('1890-01-01 00:00:00-00:01:15')).toBe('1890-01-01T00:01:15.000Z');
  });

  it('reads a timestamp without zone as UTC', () => {
    expect(parseTimestamp('2025-01-02 03:04:05.678')).toBe('2025-01-02T03:04:05.678Z');
  });

  it('keeps years below 100 as written', () => {
    expect(parseTimestamp('0042-06-01 00:00:00+00')).toBe('0042-06-01T00:00:00.000Z');
  });

  it('leaves infinity as the word', () => {
    expect(parseTimestamp('infinity')).toBe('infinity');
    expect(parseTimestamp('-infinity')).toBe('-infinity');
  });

  it('refuses text that is not ISO DateStyle rather than guessing', () => {
    expect(() => parseTimestamp('01/02/2025 03:04:05 UTC')).toThrow(/DateStyle/);
    expect(() => parseTimestamp('2025-01-02 03:04:05+00 BC')).toThrow(/DateStyle/);
  });
});

describe('parseInt8', () => {
  it('returns a number for values within the safe integer range', () => {
    expect(parseInt8('0')).toBe(0);
    expect(parseInt8('-42')).toBe(-42);
    expect(parseInt8(String(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('throws INTEGER_OUT_OF_RANGE beyond 2^53 - 1 instead of losing precision', () => {
    const attempt = (): number => parseInt8('9007199254740993');
    expect(attempt).toThrow(StorageError);
    expect(attempt).toThrow(expect.objectContaining({ code: 'INTEGER_OUT_OF_RANGE' }));
  });
});
