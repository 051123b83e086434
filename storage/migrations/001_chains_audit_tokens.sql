-- Chains (audit now, executions later): one head per chain, advanced by compare-and-set inside the
-- same transaction that inserts records, so two writers can never fork a chain.
create table chain_heads (
  chain text primary key,
  seq bigint not null check (seq >= 0),
  hash text not null,
  epoch bigint not null default 0
);

-- Leadership of a chain: a lease with a fencing epoch. The epoch grows on every change of holder;
-- a write carries the writer's epoch and is refused when it is no longer the lease's.
create table chain_leases (
  chain text primary key,
  holder text not null,
  epoch bigint not null,
  expires_at timestamptz not null
);

create table audit_entries (
  seq bigint primary key check (seq >= 1),
  id text not null unique,
  -- ISO-8601 UTC text, exactly the form that was hashed; sorts as time does.
  ts text not null,
  subject text not null,
  action text not null,
  resource text not null,
  result text not null check (result in ('allow', 'deny')),
  reason text not null,
  tenant_id text,
  -- unique: no two entries can extend the same predecessor (no fork).
  prev_hash text not null unique,
  hash text not null unique
);
create index audit_entries_subject_seq on audit_entries (subject, seq desc);
create index audit_entries_ts on audit_entries (ts);
create index audit_entries_tenant_seq on audit_entries (tenant_id, seq desc) where tenant_id is not null;

-- Every capability token issued: lets revocation by jti know the expiry, and suspension find a
-- subject's live tokens. Never stores the token itself.
create table issued_tokens (
  jti text primary key,
  sub text not null,
  scope text[] not null,
  tenant_id text,
  kid text not null,
  iat bigint not null,
  exp bigint not null,
  proven boolean not null default false
);
create index issued_tokens_sub on issued_tokens (sub);
create index issued_tokens_exp on issued_tokens (exp);

-- Revocations: durable, versioned so that every edge can tell whether its view missed one.
create table revocation_state (
  id int primary key check (id = 1),
  version bigint not null
);
insert into revocation_state (id, version) values (1, 0);

create table revocations (
  jti text primary key,
  exp bigint not null,
  version bigint not null,
  revoked_at timestamptz not null default now(),
  revoked_by text not null
);
create index revocations_exp on revocations (exp);
