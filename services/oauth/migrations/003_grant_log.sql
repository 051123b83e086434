-- The token endpoint's recent outcomes (GET /oauth/grants, the dashboard's "recent grants"): one row per
-- request, granted or refused, beside the audit entry that is the record. Pruned after 30 days.
-- (Numbered 003: 002 is the authorization-code grant's.)
create table oauth_grant_log (
  id bigserial primary key,
  at timestamptz not null default now(),
  grant_type text not null,
  client_id text not null,
  -- The issued token's subject; for a refusal, the client that asked.
  sub text not null,
  outcome text not null check (outcome in ('granted', 'refused')),
  -- The RFC 6749 error code of a refusal.
  error text,
  -- Granted: the token's scope; refused: what was asked.
  scope text[] not null default '{}',
  tenant_id text
);
create index oauth_grant_log_at on oauth_grant_log (at desc, id desc);
