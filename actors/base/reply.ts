import { SuiteError, type ErrorData } from '../../bus/index.ts';
import type { Result } from '../../bus/index.ts';

/** Turn a thrown error into catalogue data for a bus reply; unknown failures never leak their text. */
export function errorData(err: unknown): ErrorData {
  if (err instanceof SuiteError) return err.toData();
  return { code: 'INTERNAL_ERROR', message: 'internal error' };
}

/**
 * Run an actor's handler and turn its outcome into a bus reply: the value, or the error as catalogue
 * data. A failure that is not a catalogue error goes to `onUnexpected` (for the log); its text never
 * travels.
 */
export async function replyOf<T>(work: () => Promise<T>, onUnexpected?: (err: unknown) => void): Promise<Result<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (err) {
    if (!(err instanceof SuiteError)) onUnexpected?.(err);
    return { ok: false, error: errorData(err) };
  }
}
