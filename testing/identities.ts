import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { ServiceName } from '../config/index.ts';
import type { TestSuite } from './suite.ts';

/** Test-only: an agent's key pair, as the agent would hold it, and calls against a running test suite. */
export interface AgentKey {
  readonly publicKeyPem: string;
  readonly privateKey: KeyObject;
  /** Base64 Ed25519 signature of the nonce's UTF-8 bytes (spec, "Token request", proof). */
  sign(nonce: string): string;
}

export function newAgentKey(): AgentKey {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }) as string,
    privateKey,
    sign: (nonce) => sign(null, Buffer.from(nonce, 'utf8'), privateKey).toString('base64'),
  };
}

export interface Answer {
  status: number;
  // Test bodies are read field by field; their shape is what the test asserts.
  body: any;
}

export interface CallInit {
  method?: string;
  body?: unknown;
  token?: string;
  admin?: boolean;
  service?: ServiceName;
}

export function caller(t: TestSuite) {
  return async function call(path: string, init: CallInit = {}): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
    if (init.admin) headers['x-suite-admin-key'] = t.adminKey;
    const res = await fetch(t.url(init.service ?? 'token', path), {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers,
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
    return { status: res.status, body: await res.json() };
  };
}

/** Enrol an agent, get a nonce and sign it: the body of a proven token request. */
export async function provenRequest(call: ReturnType<typeof caller>, subject: string, key: AgentKey, scope: string[]) {
  const challenge = await call(`/identities/${encodeURIComponent(subject)}/challenge`, { method: 'POST' });
  if (challenge.status !== 200) throw new Error(`challenge failed: ${challenge.status} ${JSON.stringify(challenge.body)}`);
  const nonce = challenge.body.nonce as string;
  return { sub: subject, scope, proof: { nonce, signature: key.sign(nonce) } };
}

/** A call to one listener with one token (a call's own `token` still wins). */
export type ServiceCall = (path: string, init?: Omit<CallInit, 'service'>) => Promise<Answer>;

export function serviceCaller(t: TestSuite, service: ServiceName, token: string): ServiceCall {
  const call = caller(t);
  return (path, init = {}) => call(path, { service, token, ...init });
}
