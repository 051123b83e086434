/**
 * Capability tokens from the suite's OAuth 2.1 token endpoint (docs/OAUTH.md), for agents and
 * services: by client credentials (a confidential client), or by the device grant (RFC 8628: a
 * person approves a user code on the suite's consent page while this polls). The endpoints are read
 * from the suite's RFC 8414 metadata.
 */
export interface OAuthToken {
  accessToken: string;
  tokenType: string;
  expiresIn: number;
  scope: string;
  refreshToken?: string;
}

interface Common {
  /** The token listener's URL (the OAuth issuer), e.g. `https://suite.example.com`. */
  issuer: string;
  clientId: string;
  /** Space-separated scopes; none: the client's registered ceiling (client credentials). */
  scope?: string;
  /** RFC 8707: the resource the token is for (its audience), e.g. `<issuer>/mcp`. */
  resource?: string;
  fetch?: typeof globalThis.fetch;
}

export interface DeviceUserCode {
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string;
  expiresIn: number;
}

/** An OAuth error answer (RFC 6749 §5.2), as the suite gave it. */
export class OAuthTokenError extends Error {
  readonly error: string;
  readonly description: string | undefined;
  constructor(error: string, description: string | undefined) {
    super(`${error}${description !== undefined ? `: ${description}` : ''}`);
    this.name = 'OAuthTokenError';
    this.error = error;
    this.description = description;
  }
}

type Body = Record<string, unknown>;

async function metadata(c: Common): Promise<Body> {
  const f = c.fetch ?? globalThis.fetch;
  const res = await f(`${c.issuer.replace(/\/+$/, '')}/.well-known/oauth-authorization-server`);
  if (!res.ok) throw new OAuthTokenError('discovery_failed', `GET /.well-known/oauth-authorization-server answered ${res.status}`);
  return (await res.json()) as Body;
}

async function post(c: Common, url: unknown, form: Record<string, string | undefined>, headers: Record<string, string> = {}): Promise<Body> {
  if (typeof url !== 'string') throw new OAuthTokenError('discovery_failed', 'the suite names no such endpoint');
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) if (v !== undefined) params.set(k, v);
  const res = await (c.fetch ?? globalThis.fetch)(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: params.toString(),
  });
  const body = (await res.json().catch(() => ({}))) as Body;
  if (!res.ok)
    throw new OAuthTokenError(String(body.error ?? `http_${res.status}`), typeof body.error_description === 'string' ? body.error_description : undefined);
  return body;
}

const tokenOf = (b: Body): OAuthToken => ({
  accessToken: String(b.access_token),
  tokenType: String(b.token_type),
  expiresIn: Number(b.expires_in),
  scope: String(b.scope ?? ''),
  ...(typeof b.refresh_token === 'string' ? { refreshToken: b.refresh_token } : {}),
});

/** Client credentials (RFC 6749 §4.4) with `client_secret_basic`. */
export async function clientCredentialsToken(c: Common & { clientSecret: string }): Promise<OAuthToken> {
  const m = await metadata(c);
  const basic = btoa(`${encodeURIComponent(c.clientId)}:${encodeURIComponent(c.clientSecret)}`);
  return tokenOf(
    await post(c, m.token_endpoint, { grant_type: 'client_credentials', scope: c.scope, resource: c.resource }, { authorization: `Basic ${basic}` }),
  );
}

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/**
 * The device grant (RFC 8628) for a public client: asks, hands the user code to `onUserCode` (show it
 * to a person), then polls at the interval the suite gives (slower after `slow_down`) until the person
 * approves (the token), denies (`access_denied`) or the code expires (`expired_token`).
 */
export async function deviceToken(c: Common & { onUserCode: (code: DeviceUserCode) => void; signal?: AbortSignal }): Promise<OAuthToken> {
  const m = await metadata(c);
  const started = await post(c, m.device_authorization_endpoint, { client_id: c.clientId, scope: c.scope, resource: c.resource });
  c.onUserCode({
    userCode: String(started.user_code),
    verificationUri: String(started.verification_uri),
    verificationUriComplete: String(started.verification_uri_complete),
    expiresIn: Number(started.expires_in),
  });
  let interval = Number(started.interval ?? 5);
  for (;;) {
    await pause(interval * 1000, c.signal);
    try {
      return tokenOf(await post(c, m.token_endpoint, { grant_type: DEVICE_GRANT, client_id: c.clientId, device_code: String(started.device_code) }));
    } catch (err) {
      if (!(err instanceof OAuthTokenError)) throw err;
      if (err.error === 'authorization_pending') continue;
      if (err.error === 'slow_down') {
        interval += 5;
        continue;
      }
      throw err;
    }
  }
}

/** The interval RFC 8628 §3.5 asks a client to keep between polls; aborted with the signal. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
