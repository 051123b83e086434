/** The few suite API calls the benchmarks make outside the measured load (setup and checks). */

export interface JsonResponse {
  status: number;
  body: Record<string, unknown>;
}

export async function callJson(url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<JsonResponse> {
  const res = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { text };
  }
  return { status: res.status, body };
}

export interface MintedToken {
  token: string;
  jti: string;
}

/** POST /auth/token with the admin key; throws with the answer when it is not a 200. */
export async function mint(baseUrl: string, adminKey: string, sub: string, scope: string[]): Promise<MintedToken> {
  const r = await callJson(`${baseUrl}/auth/token`, { headers: { 'x-suite-admin-key': adminKey }, body: { sub, scope } });
  if (r.status !== 200 || typeof r.body.token !== 'string' || typeof r.body.jti !== 'string') {
    throw new Error(`minting a token failed: ${r.status} ${JSON.stringify(r.body)}`);
  }
  return { token: r.body.token, jti: r.body.jti };
}
