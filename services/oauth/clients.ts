import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { sql, type CommonQueryMethods } from 'slonik';
import { Type, type Static } from 'typebox';
import { rowSchema } from '../../storage/index.ts';

/** A registered client (RFC 7591 §2), as the token endpoint and the admin routes see it. */
export const OAuthClientSchema = Type.Object({
  clientId: Type.String(),
  clientName: Type.String(),
  tokenEndpointAuthMethod: Type.Union([
    Type.Literal('client_secret_basic'),
    Type.Literal('client_secret_post'),
    Type.Literal('private_key_jwt'),
    Type.Literal('none'),
  ]),
  grantTypes: Type.Array(Type.String()),
  redirectUris: Type.Array(Type.String()),
  /** The ceiling: what no token of this client exceeds. */
  scope: Type.Array(Type.String()),
  jwks: Type.Union([Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown())) }), Type.Null()]),
  registeredBy: Type.String(),
  tenantId: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
});
export type OAuthClient = Static<typeof OAuthClientSchema>;

const ClientRow = rowSchema(Type.Object({ ...OAuthClientSchema.properties, secretHash: Type.Union([Type.String(), Type.Null()]) }));
const COLUMNS = sql.fragment`client_id as "clientId", client_name as "clientName", token_endpoint_auth_method as "tokenEndpointAuthMethod",
  grant_types as "grantTypes", redirect_uris as "redirectUris", scope, jwks, registered_by as "registeredBy", tenant_id as "tenantId",
  to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "createdAt", secret_hash as "secretHash"`;

export const newClientId = () => `cl_${randomBytes(16).toString('base64url')}`;
/** 256 random bits: a secret nobody guesses; only its hash is stored. */
export const newClientSecret = () => randomBytes(32).toString('base64url');
export const secretHash = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex');

/** Constant-time comparison of a presented secret with the stored hash (both hashed to the same length first). */
export function secretMatches(presented: string, storedHash: string | null): boolean {
  if (storedHash === null) return false;
  const a = Buffer.from(secretHash(presented), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

export type NewClient = Omit<OAuthClient, 'createdAt'> & { secretHash: string | null };

export async function insertClient(db: CommonQueryMethods, c: NewClient): Promise<OAuthClient> {
  const row = await db.one(sql.type(ClientRow)`
    insert into oauth_clients (client_id, client_name, secret_hash, token_endpoint_auth_method, grant_types, redirect_uris, scope, jwks, registered_by, tenant_id)
    values (${c.clientId}, ${c.clientName}, ${c.secretHash}, ${c.tokenEndpointAuthMethod}, ${sql.array(c.grantTypes, 'text')},
      ${sql.array(c.redirectUris, 'text')}, ${sql.array(c.scope, 'text')}, ${c.jwks === null ? null : sql.jsonb(c.jwks as never)}, ${c.registeredBy}, ${c.tenantId})
    returning ${COLUMNS}`);
  return withoutSecret(row);
}

/** The client and its secret's hash (for the token endpoint's authentication only). */
export async function findClient(db: CommonQueryMethods, clientId: string): Promise<(OAuthClient & { secretHash: string | null }) | null> {
  return db.maybeOne(sql.type(ClientRow)`select ${COLUMNS} from oauth_clients where client_id = ${clientId}`);
}

export async function listClients(db: CommonQueryMethods, limit: number, offset: number, tenantId: string | undefined): Promise<OAuthClient[]> {
  const rows = await db.any(sql.type(ClientRow)`select ${COLUMNS} from oauth_clients
    ${tenantId === undefined ? sql.fragment`` : sql.fragment`where tenant_id = ${tenantId}`}
    order by created_at desc, client_id limit ${limit} offset ${offset}`);
  return rows.map(withoutSecret);
}

export async function deleteClient(db: CommonQueryMethods, clientId: string, tenantId: string | undefined): Promise<boolean> {
  const result = await db.query(sql.unsafe`delete from oauth_clients where client_id = ${clientId}
    ${tenantId === undefined ? sql.fragment`` : sql.fragment`and tenant_id = ${tenantId}`}`);
  return result.rowCount > 0;
}

function withoutSecret(row: OAuthClient & { secretHash: string | null }): OAuthClient {
  const { secretHash: _hidden, ...client } = row;
  return client;
}
