import { randomInt } from 'node:crypto';

/**
 * The device grant's pure rules (RFC 8628). The user code's alphabet is §6.1's: twenty consonants,
 * no vowels (no words), no digits (no 0/O, 1/I confusion), shown as XXXX-XXXX; eight characters
 * give 20^8 ≈ 2.6e10 codes, and entry is rate limited and short-lived, as §5.1 asks.
 */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const USER_CODE_LENGTH = 8;
export const DEVICE_CODE_LIFETIME_SECONDS = 600;
export const DEFAULT_POLL_INTERVAL_SECONDS = 5;
/** §3.5: each slow_down adds five seconds to the interval the client must keep. */
export const SLOW_DOWN_STEP_SECONDS = 5;

export function newUserCode(pick: (n: number) => number = randomInt): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[pick(USER_CODE_ALPHABET.length)];
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/**
 * What a person typed, as stored: upper-cased, separators and spaces dropped (§6.1 says to be
 * forgiving). Undefined when what is left cannot be a code.
 */
export function normaliseUserCode(typed: string): string | undefined {
  const letters = typed.toUpperCase().replace(/[\s-]/g, '');
  if (letters.length !== USER_CODE_LENGTH || [...letters].some((c) => !USER_CODE_ALPHABET.includes(c))) return undefined;
  return `${letters.slice(0, 4)}-${letters.slice(4)}`;
}

export type DeviceStatus = 'pending' | 'approved' | 'denied' | 'spent';

export interface DeviceAuthorization {
  readonly status: DeviceStatus;
  readonly expiresAt: number;
  readonly intervalSeconds: number;
  /** Unix seconds of the previous poll, if any. */
  readonly lastPolledAt?: number;
}

export type PollAnswer =
  | { readonly answer: 'issue' }
  | { readonly answer: 'authorization_pending' | 'access_denied' | 'expired_token' | 'invalid_grant' }
  | { readonly answer: 'slow_down'; readonly intervalSeconds: number };

/**
 * The answer to one poll (§3.5), and so what to store: `lastPolledAt = now` always, and the new
 * interval after a slow_down. Expiry first: an expired code says so whatever its state.
 */
export function answerPoll(auth: DeviceAuthorization, now: number): PollAnswer {
  if (now >= auth.expiresAt) return { answer: 'expired_token' };
  if (auth.status === 'spent') return { answer: 'invalid_grant' };
  if (auth.lastPolledAt !== undefined && now - auth.lastPolledAt < auth.intervalSeconds) {
    return { answer: 'slow_down', intervalSeconds: auth.intervalSeconds + SLOW_DOWN_STEP_SECONDS };
  }
  if (auth.status === 'denied') return { answer: 'access_denied' };
  if (auth.status === 'approved') return { answer: 'issue' };
  return { answer: 'authorization_pending' };
}
