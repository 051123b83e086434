import { token } from '../../auth';

/**
 * A POST to the token listener (through the dashboard's same-origin proxy) where `api()` does not
 * fit: with the admin key instead of the pasted token, or where a refusal is an answer to show
 * (`POST /auth/token/validate` answers 400 `{valid:false, error}`, not the error shape).
 */
export type Answer = { kind: 'answer'; status: number; body: unknown } | { kind: 'unreachable'; message: string };

export type Credential = { bearer: true } | { adminKey: string };

export async function postToken(path: string, body: unknown, credential: Credential): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if ('adminKey' in credential) headers['x-suite-admin-key'] = credential.adminKey;
  else {
    const t = token();
    if (t) headers.authorization = `Bearer ${t}`;
  }
  let response: Response;
  try {
    response = await fetch(`/api/token${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  } catch (err) {
    return { kind: 'unreachable', message: `the dashboard edge could not be reached: ${String(err)}` };
  }
  try {
    return { kind: 'answer', status: response.status, body: await response.json() };
  } catch {
    return { kind: 'answer', status: response.status, body: null };
  }
}

/** The edge's error body `{error:{code,message}}` in words, or the status when the body is not that. */
export function errorText(status: number, body: unknown): string {
  const e = (body as { error?: { code?: string; message?: string } } | null)?.error;
  return typeof e === 'object' && e !== null ? `${e.code ?? status}: ${e.message ?? 'no message'}` : `answer ${status}`;
}

/**
 * Why a call did not succeed, in words: a stopped or unreachable token listener (the proxy's 503) is
 * not a refusal, so it is not called one.
 */
export function failureText(status: number | null, message: string): string {
  return status === null || status === 503 ? `The token service could not be reached (UNKNOWN): ${message}` : `Refused by the token service: ${message}`;
}
