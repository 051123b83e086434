import { SuiteError, type ErrorData } from '../bus/errors.ts';

/** Turn a thrown error into catalogue data for a bus reply; unknown failures never leak their text. */
export function errorData(err: unknown): ErrorData {
  if (err instanceof SuiteError) return err.toData();
  return { code: 'INTERNAL_ERROR', message: 'internal error' };
}
