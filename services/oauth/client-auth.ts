import { KeyObject } from 'node:crypto';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet } from 'jose';
import { findIdentityByKey } from '../../storage/index.ts';
import type { CommonQueryMethods } from 'slonik';
import { ASYMMETRIC_ALGS, oauthError, parseBasicAuth, type OAuthError } from '../../core/oauth/index.ts';
import { findClient, secretMatches, type OAuthClient } from './clients.ts';
import { firstUseOfJti } from './replay.ts';

export const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** How far ahead an assertion's `exp` may be: a long-lived assertion is a reusable credential (RFC 7523 §3 item 4). */
const MAX_ASSERTION_LIFETIME_SECONDS = 600;

export interface ClientAuthInput {
  params: Readonly<Record<string, string>>;
  authorization: string | undefined;
  /** The endpoint's URL and the issuer: an assertion's `aud` must name one of them (RFC 7523 §3 item 3). */
  audiences: readonly string[];
  now: number;
}

/**
 * `identity`: the enrolled identity whose key signed the client's assertion (private_key_jwt with an
 * identity's Ed25519 key): the client proved possession of that key, as `POST /issue`'s proof does.
 */
export type ClientAuthResult = { ok: true; client: OAuthClient; identity?: string } | { ok: false; error: OAuthError; clientId?: string };

const refused = (description: string, clientId?: string): ClientAuthResult => ({
  ok: false,
  error: oauthError('invalid_client', description),
  ...(clientId !== undefined ? { clientId } : {}),
});

/**
 * Client authentication at the token, introspection and revocation endpoints (RFC 6749 §2.3, RFC 7523
 * §2.2). Exactly one method per request (§2.3: "MUST NOT use more than one"); the method must be the one
 * the client registered. Every failure is `invalid_client` with no hint of which part was wrong beyond
 * what the client itself sent.
 */
export async function authenticateClient(db: CommonQueryMethods, input: ClientAuthInput): Promise<ClientAuthResult> {
  const { params, authorization } = input;
  const basic = authorization !== undefined && /^basic /i.test(authorization.trim());
  const assertion = params.client_assertion !== undefined || params.client_assertion_type !== undefined;
  const post = params.client_secret !== undefined;
  if ([basic, assertion, post].filter(Boolean).length > 1) {
    return { ok: false, error: oauthError('invalid_request', 'more than one client authentication method in the request') };
  }
  if (basic) {
    const credentials = parseBasicAuth(authorization as string);
    if (credentials === undefined) return refused('the Basic credentials are malformed');
    if (params.client_id !== undefined && params.client_id !== credentials.clientId) return refused('client_id differs from the authenticated client');
    return bySecret(db, credentials.clientId, credentials.secret, 'client_secret_basic');
  }
  if (post) {
    if (params.client_id === undefined) return refused('client_secret needs client_id');
    return bySecret(db, params.client_id, params.client_secret as string, 'client_secret_post');
  }
  if (assertion) return byAssertion(db, input);
  if (params.client_id === undefined) return refused('no client authentication and no client_id');
  const client = await findClient(db, params.client_id);
  if (client === null) return refused('unknown client', params.client_id);
  if (client.tokenEndpointAuthMethod !== 'none') return refused(`this client authenticates with ${client.tokenEndpointAuthMethod}`, client.clientId);
  return { ok: true, client: strip(client) };
}

async function bySecret(db: CommonQueryMethods, clientId: string, secret: string, _method: string): Promise<ClientAuthResult> {
  const client = await findClient(db, clientId);
  // Unknown client and wrong secret answer alike: which client ids exist is not the caller's business.
  if (client === null || !secretMatches(secret, client.secretHash)) return refused('client authentication failed', clientId);
  // Basic and post carry the same secret the same way over TLS; a secret client may use either (clients
  // such as openid-client default to post whatever was registered). Other methods stay strict.
  if (client.tokenEndpointAuthMethod !== 'client_secret_basic' && client.tokenEndpointAuthMethod !== 'client_secret_post') {
    return refused(`this client authenticates with ${client.tokenEndpointAuthMethod}`, clientId);
  }
  return { ok: true, client: strip(client) };
}

/** RFC 7523 §3: iss = sub = client_id, aud names us, exp in the future and near, jti never seen. */
async function byAssertion(db: CommonQueryMethods, input: ClientAuthInput): Promise<ClientAuthResult> {
  const { params, now } = input;
  if (params.client_assertion_type !== JWT_BEARER_ASSERTION) return refused(`client_assertion_type must be ${JWT_BEARER_ASSERTION}`);
  const jwt = params.client_assertion;
  if (jwt === undefined || jwt.length > 8192) return refused('client_assertion is missing or too long');
  let claimedId: unknown;
  try {
    claimedId = decodeJwt(jwt).sub;
  } catch {
    return refused('client_assertion is not a JWT');
  }
  if (typeof claimedId !== 'string' || claimedId === '' || claimedId.length > 256) return refused('client_assertion has no sub');
  if (params.client_id !== undefined && params.client_id !== claimedId) return refused("client_id differs from the assertion's sub");
  const client = await findClient(db, claimedId);
  if (client === null || client.tokenEndpointAuthMethod !== 'private_key_jwt' || client.jwks === null) {
    return refused('client authentication failed', claimedId);
  }
  let payload;
  let key;
  try {
    ({ payload, key } = await jwtVerify(jwt, createLocalJWKSet(client.jwks as JSONWebKeySet), {
      algorithms: [...ASYMMETRIC_ALGS],
      issuer: client.clientId,
      subject: client.clientId,
      audience: [...input.audiences],
      requiredClaims: ['exp', 'jti'],
      currentDate: new Date(now * 1000),
      clockTolerance: 5,
    }));
  } catch (err) {
    const code = (err as { code?: string }).code ?? 'ERR_JOSE';
    return refused(`client_assertion refused (${code})`, client.clientId);
  }
  const exp = payload.exp as number;
  if (exp - now > MAX_ASSERTION_LIFETIME_SECONDS) return refused(`client_assertion must expire within ${MAX_ASSERTION_LIFETIME_SECONDS}s`, client.clientId);
  if (typeof payload.jti !== 'string' || payload.jti === '' || payload.jti.length > 256) return refused('client_assertion jti is malformed', client.clientId);
  if (!(await firstUseOfJti(db, `assertion:${client.clientId}`, payload.jti, exp))) {
    return refused('client_assertion jti was already used (replay)', client.clientId);
  }
  const identity = await identityOfKey(db, key);
  // A suspended identity's key is a key its owner lost control of: it authenticates nobody, client or identity.
  if (identity?.status === 'suspended') return refused(`the client's key is the key of suspended identity "${identity.subject}"`, client.clientId);
  return { ok: true, client: strip(client), ...(identity !== undefined ? { identity: identity.subject } : {}) };
}

/** The identity enrolled with the assertion's key (identities hold Ed25519 SPKI keys), if any. */
async function identityOfKey(db: CommonQueryMethods, key: unknown): Promise<{ subject: string; status: string } | undefined> {
  const object = key instanceof KeyObject ? key : KeyObject.from(key as Parameters<typeof KeyObject.from>[0]);
  if (object.asymmetricKeyType !== 'ed25519') return undefined;
  const found = await findIdentityByKey(db, object.export({ type: 'spki', format: 'pem' }) as string);
  return found === null ? undefined : { subject: found.subject, status: found.status };
}

function strip(c: OAuthClient & { secretHash: string | null }): OAuthClient {
  const { secretHash: _hidden, ...client } = c;
  return client;
}
