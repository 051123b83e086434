/**
 * `client_secret_basic` (RFC 6749 §2.3.1): `Basic base64(urlencode(id):urlencode(secret))`. The
 * form-encoding of both halves is the RFC's (clients such as openid-client apply it); a value that does
 * not decode is no credential at all.
 */
export function parseBasicAuth(header: string): { clientId: string; secret: string } | undefined {
  const m = /^Basic ([A-Za-z0-9+/]+={0,2})$/i.exec(header.trim());
  if (m === null) return undefined;
  const text = Buffer.from(m[1] as string, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon <= 0) return undefined;
  try {
    const clientId = decodeURIComponent(text.slice(0, colon).replace(/\+/g, ' '));
    const secret = decodeURIComponent(text.slice(colon + 1).replace(/\+/g, ' '));
    return clientId === '' ? undefined : { clientId, secret };
  } catch {
    return undefined;
  }
}
