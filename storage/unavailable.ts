import { BackendTerminatedError, BackendTerminatedUnexpectedlyError, ConnectionError, StatementTimeoutError } from 'slonik';
import { OUTCOME_UNKNOWN } from '../bus/index.ts';
import { StorageError } from './errors.ts';

/**
 * Which failures are the storage being unreachable (down, restarting, overloaded) rather than a bug
 * of ours: the caller answers them 503 SERVICE_UNAVAILABLE ("retry later"), never 500
 * (docs/ERRORS.md, "Storage and bus failures"). Decided by error class and SQLSTATE, never by
 * message text alone, walking the `cause` chain (slonik wraps the driver's error).
 */
export interface StorageOutage {
  /**
   * True when the connection was lost while a statement was under way: a write may have committed
   * or not, and the answer must say so. False when no statement reached the server (connect
   * refused, the server starting up or shutting down): nothing was done.
   */
  readonly outcomeUnknown: boolean;
}

/** Refused before any statement ran: the server is not there, or not taking sessions. */
const REFUSED_SYSCALL = new Set(['ECONNREFUSED', 'ENOENT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);
/** Lost under way: the statement may have run. */
const LOST_SYSCALL = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED']);
/** SQLSTATEs of a server that is going away or not taking sessions (57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now). */
const SHUTDOWN_STATES = new Set(['57P01', '57P02', '57P03', '57P04', '57P05']);
/** The driver's own words for a socket that closed under a query (pg has no code for it). */
const TERMINATED = /Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect/;

export function storageOutage(error: unknown): StorageOutage | undefined {
  let unknown = false;
  let found = false;
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (e instanceof StorageError) {
      if (e.code !== 'DATABASE_UNAVAILABLE') return undefined;
      found = true;
    } else if (e instanceof ConnectionError) {
      found = true;
    } else if (e instanceof BackendTerminatedError || e instanceof BackendTerminatedUnexpectedlyError || e instanceof StatementTimeoutError) {
      found = true;
      unknown = true;
    } else if (typeof code === 'string') {
      // ENOENT only from connect (the embedded server's socket file gone), not from any file read.
      if (REFUSED_SYSCALL.has(code) && (code !== 'ENOENT' || (e as { syscall?: unknown }).syscall === 'connect')) found = true;
      else if (LOST_SYSCALL.has(code)) [found, unknown] = [true, true];
      else if (SHUTDOWN_STATES.has(code)) found = true;
      // Class 08: connection exception; 53: insufficient resources (disk full, out of memory, too
      // many connections); 58: system error (I/O). The server cannot do the work now.
      else if (/^(08|53|58)[0-9A-Z]{3}$/.test(code)) [found, unknown] = [true, unknown || code.startsWith('08')];
    } else if (TERMINATED.test(e.message)) {
      found = true;
      unknown = unknown || !e.message.startsWith('timeout exceeded');
    }
  }
  return found ? { outcomeUnknown: unknown } : undefined;
}

/** The catalogue's words for an outage (bus error data): 503, and whether the outcome is known. */
export function storageOutageMessage(outage: StorageOutage): string {
  return outage.outcomeUnknown
    ? `storage connection lost during the request; ${OUTCOME_UNKNOWN}: it may have been carried out`
    : 'storage unavailable: nothing was done; try again shortly';
}
