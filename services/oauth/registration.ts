import { importJWK, type JWK } from 'jose';
import type { Static } from 'typebox';
import { clipText, type Caller } from '../../bus/index.ts';
import { scopeGrants } from '../../core/capability/index.ts';
import {
  DEVICE_CODE_GRANT,
  TOKEN_EXCHANGE_GRANT,
  oauthError,
  parseScopeParam,
  redirectUriProblem,
  scopeBeyond,
  TOKEN_ENDPOINT_AUTH_METHODS,
  type OAuthError,
  type TokenEndpointAuthMethod,
} from '../../core/oauth/index.ts';
import { insertClient, newClientId, newClientSecret, secretHash, type OAuthClient } from './clients.ts';
import type { OAuthDeps } from './deps.ts';
import type { HttpAnswer, oauthSubjects } from './subjects.ts';
import { errorAnswer } from './token-endpoint.ts';

type Answer = Static<typeof HttpAnswer>;
type RegisterRequest = Static<typeof oauthSubjects.register.request>;

export const REGISTER_SCOPE = 'oauth:client:register';
/**
 * What a public client may ask for: grants where a person approves (issue 32, "Clients"), and token
 * exchange, where the presented tokens are the credentials (a workload has no secret to keep).
 */
const PUBLIC_GRANTS = new Set(['authorization_code', DEVICE_CODE_GRANT, 'refresh_token', TOKEN_EXCHANGE_GRANT]);
const KNOWN_GRANTS = new Set([...PUBLIC_GRANTS, 'client_credentials']);
const MAX_KEYS = 10;

const bad = (description: string): OAuthError => oauthError('invalid_client_metadata', description);

/**
 * Dynamic client registration (RFC 7591 §3). A confidential client needs an initial access token
 * holding `oauth:client:register` (§3: "MAY require an initial access token"), and its ceiling must be
 * within that token's own scope (attenuation, as `POST /auth/token`); the admin key registers any
 * ceiling. A public client registers openly, for person-approved grants only. The secret is returned
 * once and stored as its SHA-256.
 */
export async function registerClient(deps: OAuthDeps, req: RegisterRequest): Promise<Answer> {
  const m = req.metadata;
  const who = req.registrar?.sub ?? 'anonymous';
  const tenantId = req.registrar?.tenantId ?? null;
  const refuse = (error: OAuthError): Answer => {
    deps.audit.record({
      subject: who,
      action: 'oauth:client:register',
      resource: 'oauth:clients',
      result: 'deny',
      reason: clipText(`${error.error}: ${error.error_description}`, 1024),
      tenantId,
    });
    return errorAnswer(error);
  };
  // The credential first (RFC 7591 §3: the initial access token authorises the request at all), then the metadata.
  if ((m.token_endpoint_auth_method ?? 'client_secret_basic') !== 'none') {
    if (req.registrar === undefined)
      return refuse(oauthError('invalid_token', 'a confidential client registers only with an initial access token holding oauth:client:register'));
    if (!mayRegister(req.registrar)) return refuse(oauthError('insufficient_scope', 'the initial access token does not hold oauth:client:register'));
  }
  const parsed = parseMetadata(m);
  if (!parsed.ok) return refuse(parsed.error);
  const meta = parsed.value;
  const keyProblem = await jwksImportProblem(meta.jwks);
  if (keyProblem !== undefined) return refuse(bad(`jwks: ${keyProblem}`));
  const confidential = meta.method !== 'none';
  if (confidential && req.registrar !== undefined) {
    if (req.registrar.kind === 'token') {
      const beyond = scopeBeyond(req.registrar.scope, meta.scope);
      if (beyond !== undefined) return refuse(oauthError('invalid_scope', `scope "${beyond}" is beyond the initial access token's own`));
    }
  } else {
    const notPublic = meta.grantTypes.find((g) => !PUBLIC_GRANTS.has(g));
    if (notPublic !== undefined) return refuse(bad(`a public client (token_endpoint_auth_method none) may not use ${notPublic}`));
  }
  const secret = meta.method === 'client_secret_basic' || meta.method === 'client_secret_post' ? newClientSecret() : undefined;
  const client = await insertClient(deps.storage.pool, {
    clientId: newClientId(),
    clientName: meta.name,
    tokenEndpointAuthMethod: meta.method,
    grantTypes: meta.grantTypes,
    redirectUris: meta.redirectUris,
    scope: meta.scope,
    jwks: meta.jwks,
    registeredBy: who,
    tenantId,
    secretHash: secret === undefined ? null : secretHash(secret),
  });
  await deps.audit.recordAndWait({
    subject: who,
    action: 'oauth:client:register',
    resource: `oauth:client:${client.clientId}`,
    result: 'allow',
    reason: clipText(`registered ${meta.method} client "${meta.name}" for ${meta.grantTypes.join(' ')} with ceiling ${meta.scope.join(' ') || '(none)'}`, 1024),
    tenantId,
  });
  return { status: 201, headers: { 'cache-control': 'no-store' }, body: registrationBody(client, secret) };
}

function mayRegister(registrar: Caller): boolean {
  return registrar.kind === 'admin' || scopeGrants(registrar.scope, REGISTER_SCOPE);
}

/** RFC 7591 §3.2.1: the client's metadata as registered, with the secret this once. */
export function registrationBody(c: OAuthClient, secret: string | undefined): Record<string, unknown> {
  return {
    client_id: c.clientId,
    ...(secret !== undefined ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
    client_id_issued_at: Math.floor(Date.parse(c.createdAt) / 1000),
    client_name: c.clientName,
    token_endpoint_auth_method: c.tokenEndpointAuthMethod,
    grant_types: c.grantTypes,
    redirect_uris: c.redirectUris,
    response_types: c.grantTypes.includes('authorization_code') ? ['code'] : [],
    scope: c.scope.join(' '),
    ...(c.jwks !== null ? { jwks: c.jwks } : {}),
  };
}

interface Metadata {
  name: string;
  method: TokenEndpointAuthMethod;
  grantTypes: string[];
  redirectUris: string[];
  scope: string[];
  jwks: { keys: Array<Record<string, unknown>> } | null;
}

function parseMetadata(m: Record<string, unknown>): { ok: true; value: Metadata } | { ok: false; error: OAuthError } {
  const fail = (d: string) => ({ ok: false as const, error: bad(d) });
  const method = m.token_endpoint_auth_method ?? 'client_secret_basic';
  if (typeof method !== 'string' || !(TOKEN_ENDPOINT_AUTH_METHODS as readonly string[]).includes(method)) {
    return fail(`token_endpoint_auth_method must be one of ${TOKEN_ENDPOINT_AUTH_METHODS.join(', ')}`);
  }
  const name = m.client_name ?? 'unnamed client';
  if (typeof name !== 'string' || name.length === 0 || name.length > 200) return fail('client_name must be a string of 1 to 200 characters');
  const grants = m.grant_types ?? ['authorization_code'];
  if (!Array.isArray(grants) || grants.length === 0 || grants.length > 8 || !grants.every((g) => typeof g === 'string' && KNOWN_GRANTS.has(g))) {
    return fail(`grant_types must be a non-empty list of ${[...KNOWN_GRANTS].join(', ')}`);
  }
  const uris = m.redirect_uris ?? [];
  if (!Array.isArray(uris) || uris.length > 10 || !uris.every((u) => typeof u === 'string' && u.length <= 2000))
    return fail('redirect_uris must be a list of at most 10 URIs');
  for (const u of uris as string[]) {
    const problem = redirectUriProblem(u);
    if (problem !== undefined) return { ok: false, error: oauthError('invalid_redirect_uri', `redirect URI ${clipText(u, 200)} ${problem}`) };
  }
  if (grants.includes('authorization_code') && uris.length === 0)
    return { ok: false, error: oauthError('invalid_redirect_uri', 'authorization_code needs at least one redirect URI') };
  if (m.scope !== undefined && typeof m.scope !== 'string') return fail('scope must be a space-separated string');
  const scope = parseScopeParam(m.scope as string | undefined);
  if (!scope.ok) return fail(`scope: ${scope.problem}`);
  if (m.jwks_uri !== undefined) return fail('jwks_uri is not supported: register the public keys as jwks');
  let jwks: Metadata['jwks'] = null;
  if (method === 'private_key_jwt') {
    const keys = (m.jwks as { keys?: unknown } | undefined)?.keys;
    if (!Array.isArray(keys) || keys.length === 0 || keys.length > MAX_KEYS) return fail(`private_key_jwt needs jwks with 1 to ${MAX_KEYS} public keys`);
    for (const key of keys) {
      const problem = publicKeyProblem(key);
      if (problem !== undefined) return fail(`jwks: ${problem}`);
    }
    jwks = { keys: keys as Array<Record<string, unknown>> };
  } else if (m.jwks !== undefined) {
    return fail('jwks is only for private_key_jwt');
  }
  return {
    ok: true,
    value: {
      name,
      method: method as TokenEndpointAuthMethod,
      grantTypes: [...new Set(grants as string[])],
      redirectUris: uris as string[],
      scope: scope.scope,
      jwks,
    },
  };
}

/** A public Ed25519 (OKP) or P-256 (EC) key: a private member (`d`) would mean the client leaked its key to us. */
function publicKeyProblem(key: unknown): string | undefined {
  if (typeof key !== 'object' || key === null || Array.isArray(key)) return 'each key must be a JWK object';
  const k = key as JWK;
  if ('d' in k) return 'a key carries its private part (d); register public keys only';
  const okp = k.kty === 'OKP' && k.crv === 'Ed25519';
  const ec = k.kty === 'EC' && k.crv === 'P-256';
  if (!okp && !ec) return 'keys must be Ed25519 (OKP) or P-256 (EC)';
  return undefined;
}

/** Whether jose can import every key (a malformed `x` is refused at registration, not at first use). */
export async function jwksImportProblem(jwks: Metadata['jwks']): Promise<string | undefined> {
  for (const key of jwks?.keys ?? []) {
    try {
      await importJWK(key as JWK, (key as JWK).kty === 'EC' ? 'ES256' : 'Ed25519');
    } catch {
      return 'a key does not import';
    }
  }
  return undefined;
}
