/** `GET /capabilities` of the token listener: who the pasted token is and which routes it may call (the server's word). */
export interface Capabilities {
  service: string;
  sub: string;
  scope: string[];
  exp?: number;
  routes: { method: string; url: string }[];
}

export const mayCall = (c: Capabilities, method: string, url: string) => c.routes.some((r) => r.method === method && r.url === url);

/** Seconds since the epoch as an ISO date-time, or "never". */
export const when = (exp: number | undefined) => (exp === undefined ? 'never' : new Date(exp * 1000).toISOString());
