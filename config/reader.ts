/**
 * The environment as a section of the configuration reads it: values trimmed, whole numbers and
 * switches checked against their bounds, every refusal a ConfigError that names the variable.
 */

export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

export type Env = Readonly<Record<string, string | undefined>>;

export interface ConfigReader {
  /** The value as set, untrimmed (`NO_COLOR` counts as set whatever it holds but the empty string). */
  raw(name: string): string | undefined;
  /** The value trimmed; undefined when unset or blank. */
  str(name: string): string | undefined;
  /** A whole number from `min` to `max`; `fallback` when unset. */
  int(name: string, fallback: number, min: number, max: number): number;
  /** `true`/`1` or `false`/`0`; `fallback` when unset. */
  bool(name: string, fallback: boolean): boolean;
  /** The refusal a section throws for a bad value of `variable`. */
  fail(variable: string, message: string): ConfigError;
}

export function readerOf(env: Env): ConfigReader {
  const str = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const fail = (variable: string, message: string): ConfigError => new ConfigError(variable, message);
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = str(name);
    if (raw === undefined) return fallback;
    if (!/^[0-9]+$/.test(raw)) throw fail(name, `must be a whole number, got "${raw}"`);
    const n = Number(raw);
    if (n < min || n > max) throw fail(name, `must be between ${min} and ${max}, got ${n}`);
    return n;
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = str(name);
    if (raw === undefined) return fallback;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    throw fail(name, `must be true or false, got "${raw}"`);
  };
  return { raw: (name) => env[name], str, int, bool, fail };
}
