-- The OAuth front door's state (docs/OAUTH.md): registered clients, the jti replay cache of client
-- assertions and DPoP proofs, and refresh-token families. Tokens themselves stay in issued_tokens.

create table oauth_clients (
  client_id text primary key,
  client_name text not null,
  -- sha256 of the secret, hex; null for private_key_jwt and public clients. The secret is shown once.
  secret_hash text,
  token_endpoint_auth_method text not null
    check (token_endpoint_auth_method in ('client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none')),
  grant_types text[] not null,
  redirect_uris text[] not null default '{}',
  -- The ceiling: no token of this client holds a scope these do not grant.
  scope text[] not null default '{}',
  jwks jsonb,
  -- Who registered it (the initial access token's subject, or 'anonymous' for an open public registration).
  registered_by text not null,
  tenant_id text,
  created_at timestamptz not null default now()
);

-- One row per jti seen (client assertions, DPoP proofs): a replay is a primary-key conflict, durable
-- across restarts and shared by every replica. Rows go once `exp` is past (the proof is dead anyway).
create table oauth_jti_seen (
  kind text not null,
  jti text not null,
  exp timestamptz not null,
  primary key (kind, jti)
);
create index oauth_jti_seen_exp on oauth_jti_seen (exp);

-- Refresh tokens (RFC 9700 §4.14.2): opaque, stored hashed, each rotation a new row in the same family;
-- presenting a spent one revokes the family (and the access tokens minted from it).
create table oauth_refresh_tokens (
  token_hash text primary key,
  family_id text not null,
  client_id text not null,
  sub text not null,
  scope text[] not null,
  aud text,
  tenant_id text,
  -- The DPoP key a public client's refresh token is bound to (RFC 9449 §5); null when unbound.
  jkt text,
  -- Extra claims the grant gave the access tokens of this family (act, prf), replayed on refresh.
  claims jsonb not null default '{}',
  lifetime_seconds integer not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  access_jti text,
  created_at timestamptz not null default now()
);
create index oauth_refresh_family on oauth_refresh_tokens (family_id);

create table oauth_refresh_families (
  family_id text primary key,
  revoked_at timestamptz,
  revoked_reason text
);
