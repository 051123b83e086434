-- Execution traces (format v1, docs/TRACE-FORMAT.md). Every signed field has its own column; the
-- verifier rebuilds the signed object from them, so an edit of any column is detected. cost,
-- governance and attested are jsonb: canonical JSON (RFC 8785) sorts keys, and a jsonb number is an
-- exact decimal that reads back as the same IEEE double it was written from, so the rebuilt object
-- hashes the same (storage/executions.test.ts checks both kinds with arbitrary values).
create table executions (
  seq bigint primary key check (seq >= 1),
  id text not null unique,
  -- ISO-8601 UTC text, exactly the form that was hashed.
  ts text not null,
  subject text not null,
  scope text[] not null,
  module text not null,
  action text not null,
  outcome text not null,
  input_hash text not null,
  output_hash text,
  cost jsonb,
  governance jsonb,
  attested jsonb not null,
  -- unique: no two records can extend the same predecessor (no fork).
  prev_hash text not null unique,
  hash text not null unique,
  key_id text not null,
  signature text not null,
  -- Not signed: lets a retried POST (same Idempotency-Key from the same token subject) find its record.
  idempotency_key text check (length(idempotency_key) between 1 and 200),
  -- Not signed: a copy of attested.tenantId, for per-tenant reads.
  tenant_id text
);
create unique index executions_idempotency on executions (((attested ->> 'sub')), idempotency_key) where idempotency_key is not null;
create index executions_subject_seq on executions (subject, seq desc);
create index executions_ts on executions (ts);
create index executions_output_hash on executions (output_hash) where output_hash is not null;
create index executions_input_hash on executions (input_hash);
create index executions_tenant_seq on executions (tenant_id, seq desc) where tenant_id is not null;

-- Public keys that signed traces, published by key id so records signed before a rotation still
-- verify. An ephemeral key (no configured private key) is trusted only while the writer that made it
-- (`holder`) still holds the executions chain's lease: after a restart, records it signed fail
-- verification, as the spec says (Configuration, SUITE_TRACE_PRIVATE_KEY).
create table trace_keys (
  key_id text primary key,
  public_key_pem text not null,
  ephemeral boolean not null,
  holder text not null,
  first_used timestamptz not null default now(),
  -- The most recent writer to lead with this key; the newest is the current key.
  current_since timestamptz not null default now()
);
create index trace_keys_current on trace_keys (current_since desc);
