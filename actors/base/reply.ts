import { SuiteError, type ErrorData } from '../../bus/index.ts';
import type { Result } from '../../bus/index.ts';
import { storageOutage, storageOutageMessage } from '../../storage/index.ts';

/**
 * A dependency down, as the catalogue says it: storage unreachable is 503 SERVICE_UNAVAILABLE, with
 * whether a write's outcome is unknown (docs/ERRORS.md). Undefined for anything else. The runtime
 * gives it to the bus too (`classifyError`), so a handler that throws gets the same answer.
 */
export function unavailableData(err: unknown): ErrorData | undefined {
  const outage = storageOutage(err);
  return outage && { code: 'SERVICE_UNAVAILABLE', message: storageOutageMessage(outage) };
}

/** Turn a thrown error into catalogue data for a bus reply; unknown failures never leak their text. */
export function errorData(err: unknown): ErrorData {
  if (err instanceof SuiteError) return err.toData();
  return unavailableData(err) ?? { code: 'INTERNAL_ERROR', message: 'internal error' };
}

/** A failure of ours rather than an answer from the catalogue: its cause belongs in the log. */
function isUnexpected(err: unknown): boolean {
  if (err instanceof SuiteError) return err.code === 'INTERNAL_ERROR';
  return unavailableData(err) === undefined;
}

/**
 * Run an actor's handler and turn its outcome into a bus reply: the value, or a catalogue error as
 * data. A failure of ours (anything but a catalogue error, or an INTERNAL_ERROR) goes to
 * `onUnexpected` when given; otherwise it is thrown on, and the bus answers INTERNAL_ERROR without
 * its text and reports it, stack and cause included, to its `onError` (the runtime logs it). Either
 * way its text never travels, and it is never lost: a 500 whose cause nobody logged is a bug.
 */
export async function replyOf<T>(work: () => Promise<T>, onUnexpected?: (err: unknown) => void): Promise<Result<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (err) {
    if (isUnexpected(err)) {
      if (onUnexpected === undefined) throw err;
      onUnexpected(err);
    }
    return { ok: false, error: errorData(err) };
  }
}
