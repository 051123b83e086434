-- Person-approved authorizations (docs/OAUTH.md): an authorization-code request (RFC 6749 §4.1 with
-- PKCE, RFC 7636/9700) or a device authorization (RFC 8628), from the request through the person's
-- decision to the token. Durable, so any replica of actor:oauth shows the consent page, takes the
-- decision, redeems the code or answers the poll.
create table oauth_authorizations (
  -- The consent page's request id (random, unguessable): the form posts it back.
  request_id text primary key,
  kind text not null check (kind in ('code', 'device')),
  client_id text not null,
  -- What the client asked for: scopes, RFC 8707 resource, the longest lifetime the person may give.
  scope text[] not null,
  resource text,
  max_lifetime_seconds integer not null,
  -- Per-request CSRF secret: the form's token is an HMAC of the request id under it.
  csrf_secret bytea not null,
  status text not null default 'pending' check (status in ('pending', 'approved', 'denied', 'spent', 'revoked')),
  expires_at timestamptz not null,
  -- code: where and how the code is returned and bound (RFC 9700 §4.5: client, redirect URI, verifier).
  redirect_uri text,
  state text,
  code_challenge text,
  -- code: sha256 of the authorization code once approved (the code itself is never stored).
  code_hash text unique,
  -- device: sha256 of the device code, the user code a person types, and the polling state (§3.5).
  device_code_hash text unique,
  user_code text unique,
  interval_seconds integer,
  last_polled_at timestamptz,
  -- The decision: who approved, what (only ever narrower than asked), under which tenant.
  approved_by text,
  approved_scope text[],
  approved_lifetime_seconds integer,
  tenant_id text,
  -- What the grant issued: its refresh family and first access token, revoked if the code is replayed.
  family_id text,
  access_jti text,
  created_at timestamptz not null default now()
);
create index oauth_authorizations_expires on oauth_authorizations (expires_at);
