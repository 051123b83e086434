import type { ConfigReader } from './reader.ts';

/** How this process runs: its mode, its log and how long it drains at stop. */
export interface ProcessConfig {
  /** `NODE_ENV=production`: the signing secret is required, and outbound calls reach nothing private unless allowed. */
  readonly production: boolean;
  readonly logLevel: string;
  /**
   * `SUITE_LOG_FORMAT`: `json` (pino's lines, for collectors) or `pretty` (one short line per entry,
   * for people); undefined: pretty when standard output is a terminal, JSON otherwise (decided by
   * cli/command.ts, which owns the process's streams).
   */
  readonly logFormat: 'json' | 'pretty' | undefined;
  /** False when `NO_COLOR` is set (no-color.org): pretty logs and the first screen stay plain. */
  readonly color: boolean;
  /** `SUITE_SHUTDOWN_GRACE_MS`: how long shutdown may take before the process exits anyway (code 1). */
  readonly shutdownGraceMs: number;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function processConfig({ raw, str, int, fail }: ConfigReader): ProcessConfig {
  const logLevel = str('SUITE_LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw fail('SUITE_LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  const logFormat = str('SUITE_LOG_FORMAT');
  if (logFormat !== undefined && logFormat !== 'json' && logFormat !== 'pretty') throw fail('SUITE_LOG_FORMAT', 'must be json or pretty');
  return {
    production: str('NODE_ENV') === 'production',
    logLevel,
    logFormat,
    // no-color.org: set to anything but the empty string.
    color: (raw('NO_COLOR') ?? '') === '',
    shutdownGraceMs: int('SUITE_SHUTDOWN_GRACE_MS', 10_000, 0, 300_000),
  };
}
