/**
 * Local failures of the storage runtime. They never cross the bus as such: a caller that must report
 * one maps it to the spec's catalogue (usually SERVICE_UNAVAILABLE or INTERNAL_ERROR). Callers branch
 * on `code`, never on the message text.
 */
export type StorageErrorCode =
  /** A file in the migrations folder is not named `NNN_name.sql`, or two files share a number. */
  | 'MIGRATION_INVALID'
  /** An applied migration's file changed since it was applied (checksum differs). */
  | 'MIGRATION_CHANGED'
  /** The database has a migration this build does not know (it was made by a newer build). */
  | 'MIGRATION_UNKNOWN'
  /** A new migration is numbered below one already applied. */
  | 'MIGRATION_OUT_OF_ORDER'
  /** A migration's SQL failed; its transaction was rolled back. */
  | 'MIGRATION_FAILED'
  /** The database could not be reached or opened. */
  | 'DATABASE_UNAVAILABLE'
  /** The PGlite data folder is used by another open storage (this process or another). */
  | 'DATABASE_IN_USE'
  /** An int8 value does not fit a JS number without losing precision. */
  | 'INTEGER_OUT_OF_RANGE';

export class StorageError extends Error {
  readonly code: StorageErrorCode;
  constructor(code: StorageErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StorageError';
    this.code = code;
  }
}

/** pino-compatible subset: `logger.info({ fields }, 'message')`. */
export interface StorageLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export const silentLogger: StorageLogger = {
  info: () => {},
  warn: () => {},
  error: () => {},
};
