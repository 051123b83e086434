import { SuiteError } from '../../../../bus/index.ts';

/**
 * Opaque page cursors. A cursor is a position, not an offset: the sequence number of the last
 * record of a page (records are listed newest first, so the next page is below it), or the last
 * subject of a page of subjects. Pages therefore stay stable while records are appended. The route
 * is named inside, so a cursor of one list is refused by another.
 */
export type CursorRoute = 'list' | 'attention' | 'authority' | 'cost';

export function encodeCursor(route: CursorRoute, position: number | string): string {
  return Buffer.from(JSON.stringify([route, position]), 'utf8').toString('base64url');
}

function decode(route: CursorRoute, cursor: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || parsed[0] !== route) {
    throw new SuiteError('INVALID_REQUEST', `cursor is not one this route issued (pass nextCursor of the previous page of ${routeName(route)})`);
  }
  return parsed[1];
}

export function seqCursor(route: 'list' | 'attention', cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  const seq = decode(route, cursor);
  if (!Number.isSafeInteger(seq) || (seq as number) < 1) throw new SuiteError('INVALID_REQUEST', 'cursor does not hold a sequence number');
  return seq as number;
}

export function subjectCursor(route: 'authority' | 'cost', cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const subject = decode(route, cursor);
  if (typeof subject !== 'string') throw new SuiteError('INVALID_REQUEST', 'cursor does not hold a subject');
  return subject;
}

function routeName(route: CursorRoute): string {
  return route === 'list' ? 'GET /executions' : `GET /executions/${route}`;
}
