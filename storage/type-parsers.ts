import { createDateTypeParser, createIntervalTypeParser, type DriverTypeParser } from 'slonik';
import { StorageError } from './errors.ts';

/**
 * How column values arrive in JS, for both storage kinds (they are installed on the one slonik
 * client, so PGlite and Postgres rows look identical). The choice, and why:
 *
 * - int8 -> number. Sequences, counters and byte sizes are int8 in SQL but must be plain numbers in
 *   JSON, TypeBox schemas and arithmetic; a bigint would leak into every caller. A value beyond
 *   2^53 - 1 throws INTEGER_OUT_OF_RANGE instead of silently losing precision.
 * - numeric -> string, untouched. numeric exists for exact decimals (money, scores); a float would
 *   round them. Callers that want arithmetic convert knowingly.
 * - timestamptz / timestamp -> ISO-8601 string in UTC, exactly the shape of
 *   `Date.prototype.toISOString()` ("2025-01-02T03:04:05.678Z"), so a timestamp written from JS reads
 *   back as the identical string and goes into JSON and canonical hashes as it is. Postgres keeps
 *   microseconds; they are truncated to milliseconds here, like JS Date does. `timestamp` (without
 *   zone) is read as UTC. `infinity` / `-infinity` stay those words.
 * - json / jsonb -> parsed value (JSON.parse).
 * - date stays the 'YYYY-MM-DD' text (a JS Date would shift it by the local zone); interval becomes
 *   seconds (slonik's parser).
 *
 * Arrays of these types get the same treatment element by element (the slonik pg driver does that).
 */
export const suiteTypeParsers: readonly DriverTypeParser[] = [
  { name: 'int8', parse: parseInt8 },
  { name: 'numeric', parse: (value: string) => value },
  { name: 'timestamptz', parse: parseTimestamp },
  { name: 'timestamp', parse: parseTimestamp },
  { name: 'json', parse: (value: string) => JSON.parse(value) as unknown },
  { name: 'jsonb', parse: (value: string) => JSON.parse(value) as unknown },
  createDateTypeParser(),
  createIntervalTypeParser(),
];

export function parseInt8(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) {
    throw new StorageError('INTEGER_OUT_OF_RANGE', `int8 value ${value} is outside the safe integer range of a JS number (±(2^53 - 1))`);
  }
  return parsed;
}

// Postgres text output with DateStyle ISO (the default): `2025-01-02 03:04:05.678901+00`, the zone
// offset being absent for `timestamp` and possibly `+05:30` or `-00:01:15` for odd session zones.
const TIMESTAMP_TEXT = /^(\d{4,})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(?:([+-])(\d{2})(?::(\d{2}))?(?::(\d{2}))?)?$/;

export function parseTimestamp(value: string): string {
  if (value === 'infinity' || value === '-infinity') return value;
  const match = TIMESTAMP_TEXT.exec(value);
  if (match === null) {
    // BC dates, or a session whose DateStyle is not ISO: refuse rather than guess.
    throw new Error(`Unexpected timestamp text from the database: "${value}" (is DateStyle ISO?)`);
  }
  const [, year, month, day, hour, minute, second, fraction = '', sign, offH, offM, offS] = match;
  const date = new Date(0);
  // setUTCFullYear rather than Date.UTC: Date.UTC maps years 0-99 to 1900-1999.
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  date.setUTCHours(Number(hour), Number(minute), Number(second), Number(`${fraction}000`.slice(0, 3)));
  const offsetSeconds = Number(offH ?? 0) * 3600 + Number(offM ?? 0) * 60 + Number(offS ?? 0);
  const utcMs = date.getTime() - (sign === '-' ? -1 : 1) * offsetSeconds * 1000;
  return new Date(utcMs).toISOString();
}
